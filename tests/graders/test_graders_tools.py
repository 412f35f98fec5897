"""Tool-call graders: expectedTools, forbiddenTools, toolOrder, toolArgs, toolCallBudget."""

from __future__ import annotations

import pytest
from graders_support import grade, make_trial
from pydantic import ValidationError

from trialrun.graders import parse_grader

CALLS = [
    ("list_files", {"path": "/"}),
    ("read_file", {"path": "notes/a.md"}, False),
    ("read_file", {"path": "notes/b.md"}),
    ("update_frontmatter", {"path": "notes/b.md", "key": "budget", "value": 41200}),
    ("update_frontmatter", {"path": "notes/b.md", "key": "tags", "value": ["a", "b"]}),
    ("write_file", {"path": "Out/Summary.md", "content": "Hello\nWorld", "summary": None}),
]


def test_expected_tools() -> None:
    trial = make_trial(calls=CALLS)
    v = grade({"type": "expectedTools", "tools": ["read_file", "write_file"]}, trial)
    assert v.passed is True and v.details["missing"] == []
    assert v.details["failed_calls"] == ["read_file"]
    v = grade({"type": "expectedTools", "tools": ["read_file", "delete_file"]}, trial)
    assert v.passed is False and v.details["missing"] == ["delete_file"]
    assert "write_file" in v.details["called"]
    assert grade({"type": "expectedTools", "tools": []}, make_trial()).passed is True


def test_forbidden_tools() -> None:
    trial = make_trial(calls=CALLS)
    v = grade({"type": "forbiddenTools", "tools": ["delete_file", "move_file"]}, trial)
    assert v.passed is True and v.details["forbidden_called"] == []
    v = grade({"type": "forbiddenTools", "tools": ["write_file", "delete_file"]}, trial)
    assert v.passed is False and v.details["forbidden_called"] == ["write_file"]


def test_tool_order() -> None:
    trial = make_trial(calls=CALLS)
    ok = grade({"type": "toolOrder", "tools": ["list_files", "read_file", "write_file"]}, trial)
    assert ok.passed is True
    bad = grade({"type": "toolOrder", "tools": ["write_file", "read_file"]}, trial)
    assert bad.passed is False
    assert bad.details["matched"] == ["write_file"] and bad.details["missing_from"] == "read_file"
    twice = grade({"type": "toolOrder", "tools": ["read_file", "read_file"]}, trial)
    assert twice.passed is True
    thrice = grade({"type": "toolOrder", "tools": ["read_file"] * 3}, trial)
    assert thrice.passed is False


@pytest.mark.parametrize(
    ("args", "passed"),
    [
        ({"path": "notes/b.md"}, True),
        ({"path": "notes/c.md"}, False),
        ({"path": ["notes/x.md", "notes/b.md"]}, True),
        ({"path": {"regex": r"^notes/[ab]\.md$"}}, True),
        ({"path": {"regex": "NOTES/B", "flags": "i"}}, True),
        ({"path": {"regex": "NOTES/B"}}, False),
        ({"path": [{"regex": "zzz"}, "notes/b.md"]}, True),
        ({"key": "budget", "value": 41200}, True),
        ({"key": "budget", "value": "41200"}, False),
        ({"key": "budget", "value": 41200.0}, True),
        ({"key": "tags", "value": {"equals": ["a", "b"]}}, True),
        ({"key": "tags", "value": {"equals": ["b", "a"]}}, False),
        ({"key": "tags", "value": ["a", "b"]}, False),  # any-of scalars: no element equals the list
        ({"key": "budget", "value": {"regex": "^412"}}, True),
        ({"missing_param": "x"}, False),
        ({}, True),
    ],
)
def test_tool_args(args: dict, passed: bool) -> None:
    v = grade(
        {
            "type": "toolArgs",
            "tool": "update_frontmatter" if "key" in args else "read_file",
            "args": args,
        },
        make_trial(calls=CALLS),
    )
    assert v.passed is passed, v.details
    if passed:
        assert "matching_call" in v.details
    else:
        assert v.details["calls"] and v.details["reason"]


def test_tool_args_multiline_regex_and_never_called() -> None:
    trial = make_trial(calls=CALLS)
    v = grade(
        {
            "type": "toolArgs",
            "tool": "write_file",
            "args": {"content": {"regex": "hello.world", "flags": "is"}},
        },
        trial,
    )
    assert v.passed is True
    never = grade({"type": "toolArgs", "tool": "delete_file", "args": {"path": "x"}}, trial)
    assert never.passed is False and "never called" in never.details["reason"]


def test_tool_args_bad_regex_fails_at_load() -> None:
    with pytest.raises(ValidationError, match="invalid regex"):
        parse_grader({"type": "toolArgs", "tool": "t", "args": {"p": {"regex": "("}}})
    with pytest.raises(ValidationError, match="unknown regex flag"):
        parse_grader({"type": "toolArgs", "tool": "t", "args": {"p": {"regex": "a", "flags": "q"}}})
    with pytest.raises(ValidationError, match="must not be empty"):
        parse_grader({"type": "toolArgs", "tool": "t", "args": {"p": []}})


def test_tool_call_budget() -> None:
    trial = make_trial(calls=CALLS)
    assert grade({"type": "toolCallBudget", "max": 6}, trial).passed is True
    over = grade({"type": "toolCallBudget", "max": 5}, trial)
    assert over.passed is False and over.details["tool_calls"] == 6
    assert grade({"type": "toolCallBudget", "max": 0}, make_trial()).passed is True
    with pytest.raises(ValidationError):
        parse_grader({"type": "toolCallBudget", "max": -1})


def test_label_and_unknown_key() -> None:
    v = grade({"type": "toolCallBudget", "max": 1, "name": "tight"}, make_trial())
    assert v.grader == "tight"
    with pytest.raises(ValidationError, match="Extra inputs"):
        parse_grader({"type": "expectedTools", "tool": ["x"]})
