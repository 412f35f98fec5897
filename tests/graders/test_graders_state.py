"""State graders over the workspace: existence, content, regex, typed frontmatter, unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from graders_support import grade, make_trial
from pydantic import ValidationError

from trialrun.graders import parse_grader, run_grader
from trialrun.graders.state import FileExistsConfig

NOTE = """---
budget: 41200
code: "41200"
draft: true
count: 1
ratio: 0.5
due: 2025-03-04
stamp: 2025-03-04T10:20:30
tags:
  - a
  - b
nums: [1, 2]
nested: {k: v}
nothing:
---
# Plan
Budget approved. Secret: hunter2
"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "notes" / "sub").mkdir(parents=True)
    (root / "notes" / "plan.md").write_text(NOTE)
    (root / "notes" / "plain").write_text("no extension\n")
    (root / "bad.md").write_text("---\ntitle: [oops\n---\nbody\n")
    (root / "nofm.md").write_text("just text\n")
    return root


@pytest.fixture
def fixture_dir(tmp_path: Path) -> Path:
    fx = tmp_path / "fixtures" / "vault"
    (fx / "notes").mkdir(parents=True)
    (fx / "notes" / "plan.md").write_text(NOTE)
    (fx / "notes" / "plain").write_text("original\n")
    return fx


def g(config: dict, ws: Path, fixture_dir: Path | None = None):
    return grade(config, make_trial(workspace=ws, fixture_dir=fixture_dir))


def test_file_exists_and_absent(ws: Path) -> None:
    assert g({"type": "fileExists", "path": "notes/plan.md"}, ws).passed is True
    v = g({"type": "fileExists", "path": "notes/plan"}, ws)
    assert v.passed is True and v.details["kind"] == "file"
    assert g({"type": "fileExists", "path": "notes/sub"}, ws).details["kind"] == "folder"
    assert g({"type": "fileExists", "path": "notes/none.md"}, ws).passed is False
    assert g({"type": "fileAbsent", "path": "notes/none"}, ws).passed is True
    absent = g({"type": "fileAbsent", "path": "notes/plan"}, ws)
    assert absent.passed is False and absent.details["found"] == "notes/plan.md"


def test_escaping_path_is_refused_and_undetermined_if_it_gets_through(ws: Path) -> None:
    with pytest.raises(ValidationError, match="leaves the workspace root"):
        parse_grader({"type": "fileExists", "path": "../outside.md"})
    unchecked = FileExistsConfig.model_construct(type="fileExists", path="../outside.md")
    v = asyncio.run(run_grader(unchecked, make_trial(workspace=ws)))
    assert v.passed is None and "outside" in v.details["error"]


@pytest.mark.parametrize(
    ("config", "passed"),
    [
        ({"value": "Budget approved"}, True),
        ({"value": "budget APPROVED"}, False),
        ({"value": "budget APPROVED", "caseSensitive": False}, True),
        ({"value": ["missing", "# Plan"]}, True),
        ({"value": ["missing", "absent"]}, False),
    ],
)
def test_file_contains(ws: Path, config: dict, passed: bool) -> None:
    v = g({"type": "fileContains", "path": "notes/plan", **config}, ws)
    assert v.passed is passed
    if not passed:
        assert "Budget approved" in v.details["text"]


def test_file_contains_missing_file(ws: Path) -> None:
    v = g({"type": "fileContains", "path": "nope.md", "value": "x"}, ws)
    assert v.passed is False and "not found" in v.details["reason"]


@pytest.mark.parametrize(
    ("value", "case", "passed", "present"),
    [
        ("hunter3", True, True, []),
        ("hunter2", True, False, ["hunter2"]),
        (["password", "token"], True, True, []),
        (["password", "Secret", "hunter2"], True, False, ["Secret", "hunter2"]),
        ("SECRET", True, True, []),
        ("SECRET", False, False, ["SECRET"]),
    ],
)
def test_file_lacks(ws: Path, value, case: bool, passed: bool, present: list) -> None:
    v = g({"type": "fileLacks", "path": "notes/plan.md", "value": value, "caseSensitive": case}, ws)
    assert v.passed is passed
    assert v.details.get("present", []) == present


def test_file_lacks_missing_file_fails(ws: Path) -> None:
    v = g({"type": "fileLacks", "path": "gone.md", "value": "x"}, ws)
    assert v.passed is False and "fileAbsent" in v.details["reason"]


@pytest.mark.parametrize(
    ("config", "passed"),
    [
        ({"value": r"budget: \d+"}, True),
        ({"value": r"^# plan$"}, False),
        ({"value": r"^# plan$", "flags": "mi"}, True),
        ({"value": ["^zzz", r"hunter\d"]}, True),
        ({"value": ["^zzz", "^yyy"]}, False),
        ({"value": r"Plan.Budget", "flags": "s"}, True),
    ],
)
def test_file_matches(ws: Path, config: dict, passed: bool) -> None:
    assert g({"type": "fileMatches", "path": "notes/plan", **config}, ws).passed is passed


def test_file_matches_bad_regex_fails_at_load() -> None:
    with pytest.raises(ValidationError, match="invalid regex"):
        parse_grader({"type": "fileMatches", "path": "a", "value": "(", "flags": "i"})
    with pytest.raises(ValidationError, match="unknown regex flag"):
        parse_grader({"type": "fileMatches", "path": "a", "value": "a", "flags": "g"})


@pytest.mark.parametrize(
    ("key", "value", "passed"),
    [
        ("budget", 41200, True),
        ("budget", "41200", False),
        ("budget", 41200.0, True),
        ("code", "41200", True),
        ("code", 41200, False),
        ("draft", True, True),
        ("draft", "true", False),
        ("draft", 1, False),
        ("count", True, False),
        ("count", 1, True),
        ("ratio", 0.5, True),
        ("due", "2025-03-04", True),
        ("due", "2025-03-05", False),
        ("stamp", "2025-03-04T10:20:30", True),
        ("tags", ["a", "b"], True),
        ("tags", ["b", "a"], False),
        ("tags", "a", False),
        ("nums", [1, 2], True),
        ("nums", ["1", "2"], False),
        ("nested", {"k": "v"}, True),
        ("nothing", None, True),
        ("nothing", "", False),
    ],
)
def test_frontmatter_equals_typed(ws: Path, key: str, value, passed: bool) -> None:
    v = g({"type": "frontmatterEquals", "path": "notes/plan", "key": key, "value": value}, ws)
    assert v.passed is passed, v.details
    assert "found" in v.details and "found_type" in v.details


def test_frontmatter_details(ws: Path) -> None:
    v = g(
        {"type": "frontmatterEquals", "path": "notes/plan", "key": "budget", "value": "41200"}, ws
    )
    assert v.details["found"] == 41200 and v.details["found_type"] == "integer"
    assert v.details["expected_type"] == "string"
    assert v.details["reason"] == "same text, different type: found integer, expected string"
    date = g({"type": "frontmatterEquals", "path": "notes/plan", "key": "due", "value": "x"}, ws)
    assert date.details["found"] == "2025-03-04" and date.details["found_type"] == "date"


@pytest.mark.parametrize(
    ("path", "key", "reason"),
    [
        ("bad.md", "title", "invalid YAML frontmatter"),
        ("nofm", "title", "no YAML frontmatter"),
        ("notes/plan", "missing", "not in the frontmatter"),
        ("gone", "title", "not found"),
    ],
)
def test_frontmatter_failures(ws: Path, path: str, key: str, reason: str) -> None:
    v = g({"type": "frontmatterEquals", "path": path, "key": key, "value": "x"}, ws)
    assert v.passed is False and reason in v.details["reason"]


def test_frontmatter_yaml_date_in_task_value(ws: Path) -> None:
    import datetime as dt

    v = g(
        {
            "type": "frontmatterEquals",
            "path": "notes/plan",
            "key": "due",
            "value": dt.date(2025, 3, 4),
        },
        ws,
    )
    assert v.passed is True


def test_file_unchanged(ws: Path, fixture_dir: Path) -> None:
    cfg = {"type": "fileUnchanged", "path": "notes/plan", "fixture": "notes/plan.md"}
    assert g(cfg, ws, fixture_dir).passed is True
    changed = g(
        {"type": "fileUnchanged", "path": "notes/plain", "fixture": "notes/plain"}, ws, fixture_dir
    )
    assert changed.passed is False
    assert changed.details["first_difference_line"] == 1
    assert changed.details["expected_line"] == "original"
    gone = g(
        {"type": "fileUnchanged", "path": "gone.md", "fixture": "notes/plan.md"}, ws, fixture_dir
    )
    assert gone.passed is False
    no_fx = g(cfg, ws, None)
    assert no_fx.passed is None and "no fixture" in no_fx.details["error"]
    bad_fx = g({**cfg, "fixture": "notes/zzz.md"}, ws, fixture_dir)
    assert bad_fx.passed is None and "not found" in bad_fx.details["error"]


def test_file_unchanged_follows_fixture_symlinks(
    ws: Path, fixture_dir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("no extension\n")
    (fixture_dir / "linked").symlink_to(elsewhere)
    v = g({"type": "fileUnchanged", "path": "notes/plain", "fixture": "linked"}, ws, fixture_dir)
    assert v.passed is True


@pytest.mark.parametrize(
    "config",
    [
        {"type": "fileExists", "path": "a"},
        {"type": "fileAbsent", "path": "a"},
        {"type": "fileContains", "path": "a", "value": "x"},
        {"type": "fileLacks", "path": "a", "value": "x"},
        {"type": "fileMatches", "path": "a", "value": "x"},
        {"type": "frontmatterEquals", "path": "a", "key": "k", "value": 1},
        {"type": "fileUnchanged", "path": "a", "fixture": "a"},
    ],
)
def test_no_workspace_is_undetermined(config: dict) -> None:
    v = grade(config, make_trial(workspace=None))
    assert v.passed is None and v.details["error"]
