"""The trajectory figures of a results line: written, read back, checked; older lines unchanged."""

from __future__ import annotations

import json

import pytest

from trialrun.rundir import RecordError, ResultLine

BASE = {"task_id": "t", "model": "scripted:x", "trial": 0, "pass": True, "solve": True}


def test_figures_round_trip_in_pinned_order() -> None:
    item = {**BASE, "repeated_calls": 3, "tool_errors": 4, "recovered": False,
            "time_to_first_tool_s": 0.25, "suite": "golden"}
    line = ResultLine.from_json(item)
    assert (line.repeated_calls, line.tool_errors, line.recovered) == (3, 4, False)
    assert line.time_to_first_tool_s == 0.25 and line.extra == {"suite": "golden"}
    out = line.to_json()
    keys = list(out)
    assert keys.index("transcript") + 1 == keys.index("repeated_calls")
    assert keys[-1] == "suite"
    assert ResultLine.from_json(json.loads(json.dumps(out))) == line


def test_a_line_without_figures_writes_back_without_them() -> None:
    line = ResultLine.from_json(dict(BASE))
    assert line.repeated_calls is None and line.recovered is None
    assert "repeated_calls" not in line.to_json() and "recovered" not in line.to_json()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("repeated_calls", -1, "repeated_calls must be an integer >= 0"),
        ("tool_errors", "2", "tool_errors must be an integer >= 0 or null"),
        ("tool_errors", True, "tool_errors must be an integer"),
        ("recovered", 1, "recovered must be true, false or null"),
        ("time_to_first_tool_s", "fast", "time_to_first_tool_s must be a number"),
    ],
)
def test_wrongly_typed_figures_are_refused(key: str, value: object, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        ResultLine.from_json({**BASE, key: value})
