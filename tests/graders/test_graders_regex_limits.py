"""A task author's regex that backtracks without end is an undetermined verdict naming the
pattern, never a hung trial: `regex`, `fileMatches` and `toolArgs` match under a limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from graders_support import grade, make_trial

from trialrun.graders import _values

SLOW = "(a|aa)+$"
TEXT = "a" * 64 + "!"

pytestmark = pytest.mark.timeout(60)  # the old `re` search runs for hours on TEXT


@pytest.fixture(autouse=True)
def short_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_values, "GRADER_REGEX_TIMEOUT_S", 0.2)


def _undetermined_naming_the_pattern(verdict) -> None:
    assert verdict.passed is None
    assert "too slow" in verdict.details["error"] and SLOW in verdict.details["error"]


def test_regex_grader(tmp_path: Path) -> None:
    verdict = grade({"type": "regex", "value": SLOW}, make_trial(final_text=TEXT))
    _undetermined_naming_the_pattern(verdict)


def test_file_matches_grader(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text(TEXT)
    trial = make_trial(workspace=tmp_path)
    verdict = grade({"type": "fileMatches", "path": "note.md", "value": SLOW}, trial)
    _undetermined_naming_the_pattern(verdict)


def test_tool_args_grader() -> None:
    trial = make_trial(calls=[("write_file", {"content": TEXT})])
    config = {"type": "toolArgs", "tool": "write_file", "args": {"content": {"regex": SLOW}}}
    _undetermined_naming_the_pattern(grade(config, trial))


def test_ordinary_patterns_keep_re_semantics() -> None:
    trial = make_trial(final_text="The capital is Paris.\nDone")
    assert grade({"type": "regex", "value": r"^Done$", "flags": "m"}, trial).passed is True
    assert grade({"type": "regex", "value": r"paris", "flags": "i"}, trial).passed is True
    assert grade({"type": "regex", "value": r"(?P<c>Paris)\.", "flags": ""}, trial).passed
    assert grade({"type": "regex", "value": r"^Done$"}, trial).passed is False
