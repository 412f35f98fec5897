"""What the readers hold per task at 10,000 tasks, shared or packed where it repeats: a
blessed baseline's entries (latencies as 8-byte doubles, one string per key), equal
task records, tags, failed-grader counts and offending-trial tuples one object each,
and one comparison when every covered task of a gate blocks. The figures read the same."""

from __future__ import annotations

import json
from array import array
from pathlib import Path
from typing import Any

import pytest

from trialrun.metrics._summary import Summarizer
from trialrun.metrics._task_meta import metas_by_id
from trialrun.rundir import Baseline, Manifest, ResultLine, RunDir, SummaryRow
from trialrun.tracking import (
    bless,
    compare,
    gate_config,
    load_baseline,
    load_run,
    run_gate,
)
from trialrun.tracking._compare import compare_views
from trialrun.tracking._counts import view_of_baseline, view_of_run
from trialrun.tracking._gate_context import gate_context

MODEL = "openai-compat:packed-model-2026-01-01"


def _write_run(out: Path, tasks: int, k: int = 3, run_id: str = "packed") -> Path:
    metas: list[dict[str, Any]] = [
        {"task_id": f"task-{i:03d}", "suite": "golden", "tier": f"T{1 + i % 2}",
         "tags": ["smoke", f"t{i % 3}"], "k": k, "metric": "pass^k",
         "policy": "ALWAYS_PASSES"} for i in range(tasks)
    ]
    manifest = Manifest(run_id=run_id, started_at="2026-01-01T00:00:00+00:00", models=[MODEL],
                        trialrun_version="test", tasks=metas)
    run = RunDir.create(out, run_id, manifest, fsync=False)
    for i, meta in enumerate(metas):
        for trial in range(k):
            ok = (i + trial) % 4 > 0
            run.append(ResultLine(
                task_id=str(meta["task_id"]), model=MODEL, trial=trial, passed=True, solve=ok,
                provider="openai-compat", verdicts=[{"grader": "contains", "passed": ok}],
                turns=2, cost_usd=0.0004 + 0.0001 * trial, latency_s=0.5 + 0.1 * (i % 7),
                tokens={"prompt": 300, "completion": 20}), sync=False)
    run.close()
    return run.path


def test_a_large_baseline_holds_packed_latencies_and_compares_the_same(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "results", tasks=200)  # 600 brackets: read entry by entry
    [blessed] = bless(run, tmp_path / "baselines")
    baseline = load_baseline(blessed.path)
    whole = Baseline.from_json(json.loads(blessed.path.read_text(encoding="utf-8")))
    assert all(isinstance(t["metrics"]["latencies_s"], array) for t in baseline.tasks)
    assert [list(t["metrics"]["latencies_s"]) for t in baseline.tasks] == [
        t["metrics"]["latencies_s"] for t in whole.tasks]
    assert len({id(next(iter(t))) for t in baseline.tasks}) == 1  # one "task_id" key
    assert len({id(t["suite"]) for t in baseline.tasks}) == 1
    assert baseline.to_json() == json.loads(blessed.path.read_text(encoding="utf-8"))
    packed, plain = compare(run, baseline), compare(run, whole)
    assert packed.to_dict() == plain.to_dict()


def test_a_small_baseline_read_whole_is_packed_too(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "results", tasks=2, k=50)  # few entries of many trials
    [blessed] = bless(run, tmp_path / "baselines")
    for task in load_baseline(blessed.path).tasks:
        assert isinstance(task["metrics"]["latencies_s"], array)
        assert len(task["metrics"]["latencies_s"]) == 50


def test_a_gate_whose_covered_tasks_all_block_compares_once(tmp_path: Path) -> None:
    run_dir = _write_run(tmp_path / "results", tasks=4)
    [blessed] = bless(run_dir, tmp_path / "baselines")
    run = load_run(run_dir)
    baseline = load_baseline(blessed.path)
    ctx = gate_context("merge", run, MODEL, gate_config("merge"), baseline, "b")
    assert ctx.comparison is not None and ctx.full is ctx.comparison
    every = {r.task_id for r in ctx.covered}
    full = compare_views(view_of_baseline(baseline), view_of_run(run, MODEL), against="b",
                         task_filter=every)
    assert full.to_dict() == ctx.full.to_dict()  # what it was made for, made once
    shown = run_gate("merge", run, baselines_dir=tmp_path / "baselines").models[0].comparison
    assert shown is not None and shown.to_dict()["tasks"] == full.to_dict()["tasks"]


def test_equal_task_entries_tags_and_counts_are_one_object_each() -> None:
    entries = [{"task_id": f"t{i}", "suite": "golden", "tags": ["a", "b"], "k": 2}
               for i in range(3)]
    metas = metas_by_id(entries)
    assert len({id(m) for m in metas.values()}) == 1
    summarizer = Summarizer(entries, "r", [MODEL], 2)
    for i in range(3):
        for trial in range(2):
            summarizer.add(ResultLine(
                task_id=f"t{i}", model=MODEL, trial=trial, passed=True, solve=trial == 0,
                verdicts=[{"grader": "contains", "passed": trial == 0}]))
    tallies = list(summarizer.tallies.values())
    assert len({id(t.failed) for t in tallies}) == 1  # {"contains": 1} once, read-only
    with pytest.raises(TypeError):
        tallies[0].failed["contains"] = 2  # type: ignore[index]
    rows = summarizer.summary(last=True).tasks
    assert len({id(r.tags) for r in rows}) == 1 and rows[0].tags == ("a", "b")
    back = [SummaryRow.from_json(r.to_json()) for r in rows]
    assert len({id(r.tags) for r in back}) == 1 and back[0].tags is rows[0].tags
    assert len({id(r.failed_graders) for r in back}) == 1  # summary.json's rows read back
    assert dict(back[0].failed_graders) == {"contains": 1}


def test_offending_trials_of_equal_numbers_are_one_tuple(tmp_path: Path) -> None:
    run = load_run(_write_run(tmp_path / "results", tasks=8, k=4))
    firsts: dict[tuple[int, ...], set[int]] = {}
    for record in run.records:
        first = record.trials.not_solved.first
        firsts.setdefault(first, set()).add(id(first))
    assert len(firsts) > 1 and all(len(ids) == 1 for ids in firsts.values())
