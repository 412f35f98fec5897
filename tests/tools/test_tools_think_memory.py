"""`think` records and changes nothing; `memory_store` / `memory_search` keep a memory
per trial, searched by keyword overlap."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tools_support import call

from trialrun.errors import UserError
from trialrun.tools import ToolContext, load_pack
from trialrun.tools.memory import MemoryEntry, search, words_of


def test_think_acknowledges_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    result = call("think", tmp_path, thought="First list the files, then count them.")
    assert result.ok and result.content == "Thought recorded (38 characters)."
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
    empty = call("think", tmp_path, thought="  ")
    assert not empty.ok and "empty" in empty.content


def test_think_takes_openjarvis_argument_name() -> None:
    (tool,) = load_pack("think")
    assert tool.parameters["required"] == ["thought"]
    wrong = call("think", Path("."), reasoning="x")
    assert not wrong.ok and "missing required argument(s): thought" in wrong.content


def test_memory_search_ranks_by_keyword_overlap(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    call("memory_store", ctx, content="The deploy key lives in vault/keys.md")
    call("memory_store", ctx, content="Paris is the capital of France", source="atlas")
    call("memory_store", ctx, content="The capital of Italy is Rome")
    found = call("memory_search", ctx, query="capital of France")
    assert found.ok
    assert found.content.splitlines() == [
        "1. [1.00] (source: atlas) Paris is the capital of France",
        "2. [0.67] The capital of Italy is Rome",
    ]
    top = call("memory_search", ctx, query="capital", top_k=1)
    assert top.content == "1. [1.00] (source: atlas) Paris is the capital of France"
    assert call("memory_search", ctx, query="bananas").content == "No results found."
    retrieved = call("memory_retrieve", ctx, query="capital of France")
    assert retrieved.content == (
        "[1.00] Paris is the capital of France\n---\n[0.67] The capital of Italy is Rome"
    )


def test_memory_does_not_leak_between_trials(tmp_path: Path) -> None:
    first = ToolContext(tmp_path, "t", {"trial": 0})
    second = ToolContext(tmp_path, "t", {"trial": 1})
    call("memory_store", first, content="the secret word is swordfish")
    assert "swordfish" in call("memory_search", first, query="secret word").content
    assert call("memory_search", second, query="secret word").content == "No results found."
    assert list(tmp_path.iterdir()) == []  # nothing on disk


def test_memory_refuses_bad_input(tmp_path: Path) -> None:
    ctx = ToolContext(tmp_path)
    assert not call("memory_store", ctx, content=" ").ok
    assert "at most" in call("memory_store", ctx, content="x" * 20_001).content
    assert not call("memory_search", ctx, query="x", top_k=0).ok
    with pytest.raises(UserError, match="takes no options"):
        load_pack("memory_store", {"size": 3})


@given(st.lists(st.text(max_size=40), max_size=8), st.text(max_size=30), st.integers(1, 10))
def test_memory_search_is_deterministic_and_bounded(
    contents: list[str], query: str, top_k: int
) -> None:
    entries = [MemoryEntry(c, "", words_of(c)) for c in contents]
    hits = search(entries, query, top_k)
    assert hits == search(entries, query, top_k)
    assert len(hits) <= top_k
    assert all(0 < h.score <= 1 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    wanted = words_of(query)
    assert all(wanted & h.entry.words for h in hits)
