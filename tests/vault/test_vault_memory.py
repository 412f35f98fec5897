"""Scribe's memory tools: update_memory appends to gemini-scribe/AGENTS.md, read_memory reads it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.tools import ToolContext, ToolResult, load_pack

Call = Callable[..., ToolResult]
TEXT_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
SEED = (
    "# Vault Memory\n\n## User Preferences\n\n"
    "- The user prefers concise, bulleted summaries over long prose.\n"
)


def test_update_memory_appends_after_a_blank_line_keeping_what_was_there(
    call: Call, vault: Path
) -> None:
    memory = vault / "gemini-scribe" / "AGENTS.md"
    memory.parent.mkdir()
    memory.write_text(SEED + "\n\n")
    out = call("update_memory", content="  - Code examples use Kestrel.  \n")
    assert out.ok, out.content
    assert out.content == "Memory updated: gemini-scribe/AGENTS.md (28 characters added)"
    assert memory.read_text() == SEED + "\n- Code examples use Kestrel.\n"
    call("update_memory", content="Dates are YYYY.MM.DD")
    assert memory.read_text().endswith("Kestrel.\n\nDates are YYYY.MM.DD\n")


def test_update_memory_creates_the_file_and_its_folder(call: Call, vault: Path) -> None:
    out = call("update_memory", content="Meeting notes go in Records/Meetings/.")
    assert out.content.startswith("Memory created: gemini-scribe/AGENTS.md")
    text = (vault / "gemini-scribe" / "AGENTS.md").read_text()
    assert text == "Meeting notes go in Records/Meetings/.\n"
    assert call("read_memory").content == text


def test_update_memory_refuses_empty_content_and_a_folder_in_the_way(
    call: Call, vault: Path
) -> None:
    empty = call("update_memory", content="  \n")
    assert (empty.ok, empty.content) == (
        False,
        "update_memory: content must be non-empty text: the thing to remember",
    )
    missing = call("update_memory")
    assert not missing.ok and "missing required argument(s): content" in missing.content
    (vault / "gemini-scribe" / "AGENTS.md").mkdir(parents=True)
    folder = call("update_memory", content="x")
    assert not folder.ok and "is a folder" in folder.content


def test_memory_tools_refuse_a_state_folder_that_points_outside(
    call: Call, vault: Path, tmp_path: Path
) -> None:
    (vault / "gemini-scribe").symlink_to(tmp_path / "outside")
    for name, args in (("update_memory", {"content": "x"}), ("read_memory", {})):
        out = call(name, **args)
        assert not out.ok and out.content.startswith(f"{name}: refused:"), out.content
    assert not (tmp_path / "outside" / "AGENTS.md").exists()


def test_read_memory_without_a_file_says_how_to_create_one(call: Call) -> None:
    out = call("read_memory")
    assert out.ok
    assert out.content == (
        "gemini-scribe/AGENTS.md does not exist yet. Use update_memory to create it."
    )


@settings(max_examples=40, deadline=None)
@given(old=st.text(TEXT_CHARS), new=st.text(TEXT_CHARS, min_size=1))
def test_update_memory_keeps_old_text_then_the_new(tmp_path_factory, old: str, new: str) -> None:
    root = tmp_path_factory.mktemp("vault")
    (root / "gemini-scribe").mkdir()
    (root / "gemini-scribe" / "AGENTS.md").write_text(old, encoding="utf-8", newline="")
    tool = {t.name: t for t in load_pack("vault")}["update_memory"]
    out = asyncio.run(tool.call(ToolContext(workspace=root), {"content": new}))
    text = (root / "gemini-scribe" / "AGENTS.md").read_bytes().decode("utf-8")
    if not new.strip():
        assert not out.ok and text == old
        return
    assert out.ok
    if old.strip():
        assert text == f"{old.strip()}\n\n{new.strip()}\n"
    else:
        assert text == f"{new.strip()}\n"
