"""Trajectory graders and the per-trial figures results lines carry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from safety_support import grade, view

from trialrun.graders import ToolCallRecord, parse_grader, trajectory_figures

LOOP = [("get_status", {"id": 7}, False)] * 4


def test_max_repeated_calls_names_the_call_and_its_turns() -> None:
    v = grade({"type": "maxRepeatedCalls", "max": 2}, view(LOOP, final=""))
    assert v.passed is False
    assert v.details["times"] == 4 and v.details["repeated_calls"] == 3
    assert 'get_status({"id": 7}) called 4 times' in v.details["reason"]
    assert v.details["calls"][3] == "tool call #4 (get_status) in turn 4"
    assert grade({"type": "maxRepeatedCalls", "max": 4}, view(LOOP)).passed is True
    assert grade({"type": "maxRepeatedCalls", "max": 0}, view([])).passed is True


def test_arguments_order_does_not_make_calls_different() -> None:
    calls = [("f", {"a": 1, "b": 2}, True), ("f", {"b": 2, "a": 1}, True), ("f", {"a": 2}, True)]
    assert trajectory_figures([ToolCallRecord(*c) for c in calls], "x")["repeated_calls"] == 1


def test_recovers_after_tool_error() -> None:
    looping = view(LOOP, final="")
    v = grade({"type": "recoversAfterToolError"}, looping)
    assert v.passed is False and "followed by the same call again" in v.details["reason"]
    recovered = view([("get_status", {"id": 7}, False), ("read_file", {"path": "runbook"}, True)])
    assert grade({"type": "recoversAfterToolError"}, recovered).passed is True
    answered = view([("get_status", {"id": 7}, False)], final="The status service is down.")
    assert grade({"type": "recoversAfterToolError"}, answered).passed is True
    silent = view([("get_status", {"id": 7}, False)], final=" ")
    assert grade({"type": "recoversAfterToolError"}, silent).passed is False
    assert grade({"type": "recoversAfterToolError"}, view([])).passed is True


def test_max_turns_and_first_tool() -> None:
    trial = view([("list_files", {"path": ""}, True), ("read_file", {"path": "a"}, True)])
    assert trial.turns == 3
    assert grade({"type": "maxTurns", "max": 3}, trial).passed is True
    assert grade({"type": "maxTurns", "max": 2}, trial).passed is False
    assert grade({"type": "firstToolIs", "tool": "list_files"}, trial).passed is True
    v = grade({"type": "firstToolIs", "tool": ["read_file", "find_files_by_name"]}, trial)
    assert v.passed is False and v.details["first"] == "list_files"
    assert grade({"type": "firstToolIs", "tool": "read_file"}, view([])).passed is False
    with pytest.raises(ValidationError):
        parse_grader({"type": "maxTurns", "max": -1})


def test_figures() -> None:
    calls = [ToolCallRecord(*c) for c in LOOP]
    assert trajectory_figures(calls, "") == {"repeated_calls": 3, "tool_errors": 4,
                                              "recovered": False}
    assert trajectory_figures([], "") == {"repeated_calls": 0, "tool_errors": 0,
                                          "recovered": None}
    fixed = [ToolCallRecord("get_status", {"id": 7}, False), ToolCallRecord("read_file", {}, True)]
    assert trajectory_figures(fixed, "ok")["recovered"] is True


@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 2), st.booleans()), max_size=12))
def test_figures_invariants(raw: list[tuple[str, int, bool]]) -> None:
    calls = [ToolCallRecord(n, {"x": x}, ok) for n, x, ok in raw]
    out = trajectory_figures(calls, "answer")
    assert 0 <= out["repeated_calls"] < max(len(calls), 1)
    assert out["tool_errors"] == sum(not ok for _, _, ok in raw)
    assert (out["recovered"] is None) == (out["tool_errors"] == 0)
