"""`SummaryRow`: the one record for a summary.json row; old files still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import summarize
from trialrun.rundir import RecordError, ResultLine, Summary, SummaryRow, Trajectory

M = "scripted:m"
OLD = Path(__file__).parent / "data" / "v0.1.0" / "20261123T182854Z-a5ac" / "summary.json"


def _line(trial: int, solve: bool, **extra: Any) -> ResultLine:
    return ResultLine(task_id="a", model=M, trial=trial, passed=True, solve=solve,
                      provider="scripted", turns=2, latency_s=0.5, repeated_calls=1,
                      tool_errors=0, recovered=None, time_to_first_tool_s=0.1, extra=extra)


def test_a_row_from_metrics_round_trips_through_the_file_form() -> None:
    meta = {"task_id": "a", "k": 2, "suite": "golden", "tier": "T1", "tags": ["x"],
            "tracked_metrics": ["pass_rate", "latency_p95"]}
    summary = summarize([_line(0, True), _line(1, False)], [meta], models=[M])
    [row] = summary.tasks
    assert isinstance(row, SummaryRow) and isinstance(row.trajectory, Trajectory)
    assert (row.k, row.n, row.pass_n, row.solved, row.tier) == (2, 2, 2, 1, "T1")
    assert row.tracked == {"pass_rate": 1.0, "latency_p95": 0.5}
    data = json.loads(json.dumps(row.to_json()))
    assert data["repeated_calls"] == 1.0 and data["tracked"]["pass_rate"] == 1.0
    assert SummaryRow.from_json(data) == row
    again = Summary.from_json(json.loads(json.dumps(summary.to_json())))
    assert again.tasks == summary.tasks and again.aggregate == summary.aggregate


def test_the_old_shape_reads_and_writes_back_unchanged() -> None:
    """0.1.0 rows: no pass_n (pass counted without infra errors), no trajectory figures."""
    data = json.loads(OLD.read_text())
    summary = Summary.from_json(data)
    row = summary.tasks[0]
    assert row.pass_n is None and row.pass_total == row.n + row.infra_errors
    assert row.trajectory is None and row.tracked is None and row.settled_after is None
    assert summary.to_json()["tasks"] == data["tasks"]


def test_a_sparse_old_row_gets_defaults_and_keeps_unknown_keys() -> None:
    data = {"run_id": "r", "k": 4, "tasks": [
        {"task_id": "t", "model": M, "n": 3, "passed": 3, "solved": 2, "infra_errors": 1,
         "pass_k": None, "solve_k": None, "from_the_future": {"x": 1}}]}
    [row] = Summary.from_json(data).tasks
    assert (row.k, row.metric, row.tags, row.policy, row.undetermined) == (4, "pass^k", (), None, 0)
    assert row.pass_total == 4 and row.insufficient
    assert row.extra == {"from_the_future": {"x": 1}}
    assert row.to_json()["from_the_future"] == {"x": 1} and "pass_n" not in row.to_json()


@pytest.mark.parametrize(("key", "value", "message"), [
    ("n", "3", "tasks[0].n must be an integer"),
    ("pass_n", True, "tasks[0].pass_n must be an integer"),
    ("solve_k", "1.0", "tasks[0].solve_k must be a number or null"),
    ("k", 2.5, "tasks[0].k must be an integer"),
])
def test_a_damaged_row_is_one_line_naming_its_place(key: str, value: Any, message: str) -> None:
    data = {"tasks": [{"task_id": "t", "model": M, key: value}]}
    with pytest.raises(RecordError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Summary.from_json(data)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**40) | st.floats(allow_nan=False,
                                                                    allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)
KEYS = st.sampled_from([
    "task_id", "model", "provider", "suite", "tier", "k", "n", "pass_n", "passed", "solved",
    "undetermined", "infra_errors", "pass_k", "solve_k", "pass_at_k", "flaky", "metric",
    "policy", "tags", "mean_turns", "failed_graders", "errors", "safety_violations",
    "repeated_calls", "tool_errors", "recovered_rate", "trials_with_tool_errors",
    "time_to_first_tool_s", "settled_after", "settled", "tracked", "something_else",
])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=12))
def test_any_row_either_is_refused_in_one_line_or_round_trips(data: dict[str, Any]) -> None:
    try:
        row = SummaryRow.from_json(data, "tasks[3]")
    except RecordError as exc:
        assert str(exc).startswith("tasks[3].") and "\n" not in str(exc)
        return
    written = json.loads(json.dumps(row.to_json()))
    assert SummaryRow.from_json(written, "tasks[3]") == row
