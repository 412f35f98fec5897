"""Tallies of tasks whose first lines agree share one record of those fields, and the
rows read from it stay what each task's own lines say."""

from __future__ import annotations

import math
from typing import Any

from trialrun.metrics import rounded, summarize
from trialrun.metrics._summary import Summarizer
from trialrun.metrics._tally import NO_TRAJECTORY, NONE_YET
from trialrun.rundir import ResultLine


def _line(task_id: str, extra: dict[str, Any], provider: str = "openai-compat") -> ResultLine:
    return ResultLine(task_id=task_id, model="openai-compat:m-2026-01-01", trial=0, passed=True,
                      solve=True, provider=provider, latency_s=1.0, extra=extra)


def test_tasks_with_the_same_first_line_fields_share_them() -> None:
    summarizer = Summarizer()
    for i in range(5):
        summarizer.add(_line(f"t{i}", {"suite": "golden", "tier": "T1", "tags": ["a"]}))
    firsts = {id(t.first) for t in summarizer.tallies.values()}
    assert len(firsts) == 1


def test_equal_but_different_values_are_not_shared() -> None:
    lines = [
        _line("a", {"k": 1, "suite": "golden"}),
        _line("b", {"k": True, "suite": "golden"}),  # a bool is no k
        _line("c", {"k": 1.0, "suite": "golden"}),  # nor is a float
        _line("d", {"k": 1, "suite": "golden", "tags": [{"x": 1}]}),  # unhashable: own
    ]
    rows = {r.task_id: r for r in summarize(lines, None, k=3).tasks}
    assert (rows["a"].k, rows["b"].k, rows["c"].k) == (1, 3, 3)
    assert rows["d"].tags == ("{'x': 1}",) and rows["a"].tags == ()


def _priced(task_id: str, trial: int) -> ResultLine:
    return ResultLine(task_id=task_id, model="openai-compat:m-2026-01-01", trial=trial,
                      passed=True, solve=True, latency_s=1.0 + trial, cost_usd=0.01 * trial,
                      tokens={"prompt": 100 + trial, "completion": 7})


def test_costs_and_tokens_are_exact_sums_not_per_trial_arrays() -> None:
    metas: list[dict[str, Any]] = [
        {"task_id": "plain", "k": 3},
        {"task_id": "tracked", "k": 3, "tracked_metrics": ["cost", "tokens", "latency_p95"]},
    ]
    summarizer = Summarizer(metas, "r", ["openai-compat:m-2026-01-01"], 3)
    for task_id in ("plain", "tracked"):
        for trial in range(3):
            summarizer.add(_priced(task_id, trial))
    tallies = {tid: t for (tid, _), t in summarizer.tallies.items()}
    for tally in tallies.values():  # one number each, whatever the trials
        assert rounded(tally.cost_sum) == math.fsum([0.0, 0.01, 0.02])
        assert tally.token_sum == 324.0 and tally.token_count == tally.cost_count == 3
    rows = {r.task_id: r for r in summarizer.summary().tasks}
    assert rows["plain"].tracked is None
    assert rows["tracked"].tracked == {"cost": 0.01, "tokens": 108.0, "latency_p95": 2.9}
    lines = [_priced(t, i) for t in ("plain", "tracked") for i in range(3)]
    whole = summarize(lines, metas, run_id="r", models=["openai-compat:m-2026-01-01"], k=3)
    assert whole.to_json() == summarizer.summary().to_json()


def test_what_a_tally_has_nothing_of_is_one_shared_empty_record() -> None:
    summarizer = Summarizer([{"task_id": "a"}, {"task_id": "b"}], "r", None, 1)
    summarizer.add(_priced("a", 0))
    summarizer.add(ResultLine(task_id="b", model="openai-compat:m-2026-01-01", trial=0,
                              passed=True, solve=True, repeated_calls=0, tool_errors=0,
                              time_to_first_tool_s=0.25))
    a, b = (summarizer.tallies[(t, "openai-compat:m-2026-01-01")] for t in ("a", "b"))
    assert a.trajectory is NO_TRAJECTORY  # the one shared empty record
    assert a.trajectory.first_tool_s is NONE_YET and len(NONE_YET) == 0
    assert list(b.trajectory.first_tool_s) == [0.25] and b.trajectory is not a.trajectory
    rows = {r.task_id: r for r in summarizer.summary().tasks}
    trajectory = rows["b"].trajectory
    assert trajectory is not None and trajectory.time_to_first_tool_s == 0.25
