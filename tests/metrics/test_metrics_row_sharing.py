"""A summary row holds no empty dict of its own, a last summary hands its tallies'
counts to the rows, a task's arrays are trimmed once its k trials are in, and the 0 and
1 of pass^k are one object each: what a row costs at 10,000 tasks."""

from __future__ import annotations

from typing import Any

import pytest

from trialrun.metrics import Tally, summarize
from trialrun.metrics._summary import Summarizer
from trialrun.rundir import ResultLine, SummaryRow

MODEL = "openai-compat:m-2026-01-01"


def _line(task_id: str, trial: int, ok: bool = True, **more: Any) -> ResultLine:
    return ResultLine(task_id=task_id, model=MODEL, trial=trial, passed=True, solve=ok,
                      latency_s=0.5 + trial, turns=2, cost_usd=0.001, **more)


def test_rows_without_counts_share_one_read_only_empty_mapping() -> None:
    rows = summarize([_line("a", 0), _line("b", 0)], None, k=1).tasks
    a, b = rows
    assert a.failed_graders is b.failed_graders is a.errors is b.errors
    assert a.extra is b.extra and a.extra == {} and a.failed_graders == {}
    with pytest.raises(TypeError):
        a.extra["x"] = 1  # type: ignore[index]
    assert SummaryRow("t", MODEL).extra is SummaryRow("u", MODEL).extra
    back = SummaryRow.from_json(a.to_json())
    assert back.to_json() == a.to_json() and back.failed_graders is a.failed_graders


def test_a_last_summary_hands_the_counts_over_and_closes_the_tallies() -> None:
    failing = {"verdicts": [{"grader": "contains", "passed": False}],
               "error": {"kind": "timeout", "message": "slow"}}
    summarizer = Summarizer([{"task_id": "a", "k": 2}], "r", [MODEL], None)
    summarizer.add(_line("a", 0, False, **failing))
    summarizer.add(_line("a", 1))
    again = summarizer.summary()  # another may follow: the rows' own copies
    [row] = summarizer.summary(last=True).tasks
    assert not summarizer.tallies  # let go as the rows were made: `kept` has their totals
    tally = summarizer.kept[("a", MODEL)]
    assert isinstance(tally, Tally)  # a plain tally keeps itself (a TrialTally: less)
    assert row.failed_graders is tally.failed and row.errors is tally.error_kinds
    assert again.tasks[0].failed_graders is not tally.failed
    assert row.to_json() == again.tasks[0].to_json()
    with pytest.raises(ValueError, match="closed"):
        summarizer.add(_line("a", 2))
    with pytest.raises(ValueError, match="last summary"):
        summarizer.summary()  # its tallies let their per-trial figures go


def test_a_tasks_arrays_are_trimmed_once_its_k_trials_are_in() -> None:
    summarizer = Summarizer([{"task_id": "a", "k": 10}], "r", [MODEL], None)
    for trial in range(10):
        summarizer.add(_line("a", trial))
        tally = summarizer.tallies[("a", MODEL)]
        if trial < 9:
            grown = tally.latencies.buffer_info()
    trimmed = tally.latencies.buffer_info()
    assert len(tally.latencies) == tally.turn_count == tally.cost_count == 10
    assert trimmed[0] != grown[0]  # a new buffer, of the values' size
    assert tally.latencies.__sizeof__() < 64 + 10 * 8 + 8


def test_pass_k_of_zero_and_one_is_one_object_each() -> None:
    lines = [_line(t, i, ok=t != "bad") for t in ("a", "b", "bad") for i in range(3)]
    rows = {r.task_id: r for r in summarize(lines, None, k=3).tasks}
    assert rows["a"].solve_k == 1.0 and rows["a"].solve_k is rows["b"].solve_k
    assert rows["bad"].solve_k == 0.0 and rows["bad"].solve_k is rows["bad"].pass_at_k
