"""update_frontmatter: typed values; other keys, their order, comments and the body kept."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from trialrun.tools import ToolResult
from trialrun.tools._frontmatter import (
    FrontmatterError,
    parse_frontmatter,
    set_frontmatter_key,
    split_frontmatter,
)

NOTE = """---
title: Trip plan   # keep this comment
budget: 1200
tags:
  - travel
  - '2024'
created: 2024-01-02
draft: false
---
# Trip

Body with --- a rule inside
---
and more.
"""


@pytest.fixture
def note(vault: Path) -> Path:
    path = vault / "trip.md"
    path.write_text(NOTE)
    return path


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (41200, 41200),
        ("41200", "41200"),
        (True, True),
        ("true", "true"),
        (2.5, 2.5),
        ("2025-03-04", dt.date(2025, 3, 4)),
        ("2025-13-45", "2025-13-45"),
        (["a", "b c"], ["a", "b c"]),
        ([], []),
        ("multi\nline", "multi\nline"),
        ("has: colon # and hash", "has: colon # and hash"),
    ],
)
def test_typed_values_round_trip(
    note: Path, call: Callable[..., ToolResult], value: object, expected: object
) -> None:
    result = call("update_frontmatter", path="trip", key="budget", value=value)
    assert result.ok, result.content
    data = parse_frontmatter(note.read_text())
    assert data is not None
    got = data["budget"]
    assert got == expected and type(got) is type(expected)
    assert list(data) == ["title", "budget", "tags", "created", "draft"]
    assert data["tags"] == ["travel", "2024"] and data["created"] == dt.date(2024, 1, 2)
    assert data["draft"] is False


def test_body_and_comment_preserved(note: Path, call: Callable[..., ToolResult]) -> None:
    result = call("update_frontmatter", path="trip.md", key="status", value="done")
    assert result.content == 'Set status = "done" (string) in trip.md'
    text = note.read_text()
    assert text.endswith(NOTE.split("---\n", 2)[2])
    assert "# keep this comment" in text
    assert list(parse_frontmatter(text) or {})[-1] == "status"
    assert split_frontmatter(text).body == split_frontmatter(NOTE).body


def test_note_without_frontmatter_gets_one(vault: Path, call: Callable[..., ToolResult]) -> None:
    result = call("update_frontmatter", path="todo", key="due", value="2025-01-31")
    assert result.ok and "(date)" in result.content
    text = (vault / "todo.md").read_text()
    assert text == "---\ndue: 2025-01-31\n---\n- [ ] buy milk\n"


def test_invalid_frontmatter_is_an_error_result(
    vault: Path, call: Callable[..., ToolResult]
) -> None:
    (vault / "bad.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    result = call("update_frontmatter", path="bad", key="k", value="v")
    assert not result.ok and "invalid YAML frontmatter" in result.content
    assert (vault / "bad.md").read_text() == "---\ntitle: [unclosed\n---\nbody\n"
    (vault / "list.md").write_text("---\n- a\n- b\n---\n")
    assert "not a mapping" in call("update_frontmatter", path="list", key="k", value=1).content


def test_missing_note_and_bad_value(call: Callable[..., ToolResult]) -> None:
    missing = call("update_frontmatter", path="nope", key="k", value=1)
    assert missing.content == "update_frontmatter: path 'nope' not found"
    assert not call("update_frontmatter", path="todo", key=" ", value=1).ok
    assert not call("update_frontmatter", path="todo", key="k", value={"a": 1}).ok


def test_parse_helpers() -> None:
    assert parse_frontmatter("no frontmatter") is None
    assert parse_frontmatter("---\n---\nbody") == {}
    assert parse_frontmatter("---\nyes_word: yes\n---\n") == {"yes_word": "yes"}
    with pytest.raises(FrontmatterError, match="line"):
        parse_frontmatter("---\na: 1\nb: : :\n---\n")
    crlf = set_frontmatter_key("---\r\na: 1\r\n---\r\nbody\r\n", "b", 2)
    assert crlf == "---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n"
