"""Scribe's vault memory: `update_memory` appends to the AGENTS.md file in its state folder,
`read_memory` returns it. The append keeps Scribe's layout: the old text trimmed, one
blank line, the new text."""

from __future__ import annotations

import os

from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import read_text
from trialrun.tools.vault._state_folder import MEMORY_FILE, state_path


@tool
def update_memory(ctx: ToolContext, content: str) -> str:
    """Remember information about this vault by appending it to the AGENTS.md memory file.

    Use it when the user asks you to remember something, or when you learn how the vault
    is organised or should be used. The file is created when it does not exist yet.

    Args:
        content: What to remember: clear, concise Markdown appended to AGENTS.md.
    """
    if not isinstance(content, str) or not content.strip():
        raise ToolError("update_memory: content must be non-empty text: the thing to remember")
    target = state_path("update_memory", ctx, MEMORY_FILE)
    if target.is_dir():
        raise ToolError(f"update_memory: {MEMORY_FILE} is a folder, not the memory file")
    old = ""
    if os.path.lexists(target):
        try:
            old = read_text(target).strip()
        except ToolError as exc:
            raise ToolError(f"update_memory: {MEMORY_FILE} is a {exc}") from None
    new = f"{old}\n\n{content.strip()}\n" if old else f"{content.strip()}\n"
    if target.parent.exists() and not target.parent.is_dir():
        raise ToolError(f"update_memory: {target.parent.name!r} is a file, not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(new, encoding="utf-8", newline="")
    verb = "Memory updated" if old else "Memory created"
    return f"{verb}: {MEMORY_FILE} ({len(content.strip())} characters added)"


@tool
def read_memory(ctx: ToolContext) -> str:
    """Read the AGENTS.md memory file: what has been remembered about this vault (its
    structure, topics, the user's preferences and custom instructions)."""
    target = state_path("read_memory", ctx, MEMORY_FILE)
    if not os.path.lexists(target):
        return f"{MEMORY_FILE} does not exist yet. Use update_memory to create it."
    if target.is_dir():
        raise ToolError(f"read_memory: {MEMORY_FILE} is a folder, not the memory file")
    try:
        text = read_text(target)
    except ToolError as exc:
        raise ToolError(f"read_memory: {MEMORY_FILE} is a {exc}") from None
    return text if text.strip() else f"(empty memory file: {MEMORY_FILE})"
