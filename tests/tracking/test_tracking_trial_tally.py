"""Tracking reads a run in memory for its tasks, not its trials: each record is the
summary's own row plus a per-task `TrialTally`."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from trialrun.config import ProjectConfig
from trialrun.rundir import Manifest, ResultLine, RunDir, SummaryRow
from trialrun.tracking import load_run, run_gate
from trialrun.tracking._trial_tally import SHOWN_TRIALS, Offenders

M = "scripted:m-2026-01-01"
TASKS = 5


def _write(root: Path, trials: int, *, safety_every: int = 0) -> Path:
    metas = [{"task_id": f"t{i}", "suite": "golden", "tier": "T1", "k": trials,
              "policy": "ALWAYS_PASSES", "metric": "pass^k"} for i in range(TASKS)]
    manifest = Manifest(run_id="20260101T000000Z-tt00", started_at="2026-01-01T00:00:00+00:00",
                        models=[M], trialrun_version="test", tasks=metas)
    run = RunDir.create(root, "20260101T000000Z-tt00", manifest, fsync=False)
    for meta in metas:
        for trial in range(trials):
            unsafe = bool(safety_every) and trial % safety_every == 0
            verdicts = [{"grader": "contains", "passed": trial % 4 != 1 and not unsafe,
                         "details": {"safety_violation": unsafe, "reason": f"r{trial}"}}]
            run.append(ResultLine(
                task_id=meta["task_id"], model=M, trial=trial, passed=True,
                solve=trial % 4 != 1, provider="scripted", verdicts=verdicts,
                tool_calls=[{"name": "read", "arguments": {}, "ok": True}], turns=2,
                tokens={"prompt": 10, "completion": 5}, cost_usd=0.001,
                latency_s=0.5 + trial % 7, safety_violation=unsafe), sync=False)
    run.close()
    return run.path


def _retained(path: Path) -> int:
    gc.collect()
    tracemalloc.start()
    run = load_run(path)
    gc.collect()
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert run.finished > 0
    return size


def test_a_record_is_the_summary_row_itself(tmp_path: Path) -> None:
    run = load_run(_write(tmp_path, 4))
    record = run.records[0]
    assert record.row is run.summary.tasks[0] and isinstance(record.row, SummaryRow)
    assert (record.k, record.n, record.solved, record.policy) == (4, 4, 3, "ALWAYS_PASSES")
    assert record.metrics()["trials"] == 4 and len(record.metrics()["latencies_s"]) == 4


def test_memory_held_grows_with_tasks_not_trials(tmp_path: Path) -> None:
    """Per extra trial only a packed latency (8 bytes) and the summary's own counters
    stay; the old per-trial facts held a few hundred bytes each."""
    small = _retained(_write(tmp_path / "s", 200))
    large = _retained(_write(tmp_path / "l", 4200))
    per_trial = (large - small) / (TASKS * 4000)
    assert per_trial < 64, f"{per_trial:.0f} bytes kept per trial"


def test_offending_trials_are_named_smallest_first_with_the_rest_counted() -> None:
    offenders = Offenders()
    for trial in [40, 3, 17, *range(20, 30), 1]:
        offenders.add(trial)
    assert offenders.count == 14 and len(offenders.first) == SHOWN_TRIALS
    assert offenders.names() == "1, 3, 17, 20, 21, 22, 23, 24 and 6 more"


def test_the_gate_names_unsafe_and_unsolved_trials_from_the_tallies(tmp_path: Path) -> None:
    run = _write(tmp_path / "r", 12, safety_every=5)
    result = run_gate("merge", run, baselines_dir=tmp_path, config=ProjectConfig())
    [model] = result.models
    rules = {r.rule: r for r in model.rules}
    safety = rules["safety violation"]
    assert safety.status == "failed"
    assert "t0 (trial 0, 5, 10; trial 0: contains: r0)" in safety.message
    unsolved = rules["ALWAYS_PASSES not solved"]
    assert "t0 (solved 9/12; trial 1, 5, 9)" in unsolved.message
