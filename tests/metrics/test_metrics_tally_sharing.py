"""Tallies of tasks whose first lines agree share one record of those fields, and the
rows read from it stay what each task's own lines say."""

from __future__ import annotations

from typing import Any

from trialrun.metrics import summarize
from trialrun.metrics._summary import Summarizer
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
    assert rows["d"].tags == ["{'x': 1}"] and rows["a"].tags == []
