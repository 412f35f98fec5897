"""The run readers (bless, compare, gate) hold per trial only a few packed numbers.

At a fixed number of tasks, four times the trials may raise the traced peak by a small
number of bytes a trial: no object, set entry or list slot per trial.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trialrun.rundir import Manifest, ResultLine, RunDir
from trialrun.tracking import bless, compare_runs, run_gate

MODEL = "openai-compat:memory-model-2026-01-01"
TASKS = 20
# today: compare ~-4, bless ~40 (8 held a trial, the rest the percentiles' packed copies),
# gate ~95 (the blessed baseline it reads: parsed whole, its latencies then packed);
# at 810aa3a: -4, 56 and 136 (the baseline's latencies held as JSON floats, 32 bytes
# each); before the streamed baseline and the packed percentiles: 57, 128 and 138;
# before the packed figures: 1059, 226 and 938
BYTES_PER_TRIAL = 128


def _write_run(out: Path, k: int) -> Path:
    ids = [f"task-{i:03d}" for i in range(TASKS)]
    metas: list[dict[str, Any]] = [
        {"task_id": t, "suite": ("golden", "adversarial")[i % 2], "k": k}
        for i, t in enumerate(ids)
    ]
    manifest = Manifest(run_id="m", started_at="2026-01-01T00:00:00+00:00", models=[MODEL],
                        trialrun_version="test", tasks=metas)
    run = RunDir.create(out, "m", manifest, fsync=False)
    for i, task_id in enumerate(ids):
        for trial in range(k):
            ok = (i * 7 + trial * 3) % 10 > 0
            run.append(ResultLine(
                task_id=task_id, model=MODEL, trial=trial, passed=True, solve=ok,
                verdicts=[{"grader": "contains", "passed": ok}],
                tool_calls=[{"name": "read_file", "arguments": {"path": "x"}, "ok": True}],
                turns=2, tokens={"prompt": 300, "cached": 0, "completion": 20},
                cost_usd=0.0004 + 0.0001 * (trial % 3), latency_s=0.5 + (trial % 13) * 0.1,
            ), sync=False)
    run.close()
    return run.path


def _peak(action: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _measure(reader: str, run: Path, again: Path, baselines: Path) -> int:
    if reader == "bless":
        return _peak(lambda: bless(run, again))
    if reader == "compare":
        return _peak(lambda: compare_runs(run, run, alpha=0.05, method="exact"))
    return _peak(lambda: run_gate("merge", run, baselines_dir=baselines))


@pytest.mark.parametrize("reader", ["bless", "compare", "gate"])
def test_peak_does_not_grow_per_trial(tmp_path: Path, reader: str) -> None:
    sizes = (100, 400)
    peaks = []
    for k in sizes:
        run = _write_run(tmp_path / f"run-{k}", k)
        baselines = tmp_path / f"baselines-{k}"
        bless(run, baselines)  # the gate reads it; bless itself is measured into a new folder
        peaks.append(_measure(reader, run, tmp_path / f"again-{k}", baselines))
    trials = (sizes[1] - sizes[0]) * TASKS
    growth = (peaks[1] - peaks[0]) / trials
    print(f"{reader}: {growth:.0f} bytes a trial")
    assert growth < BYTES_PER_TRIAL, peaks
