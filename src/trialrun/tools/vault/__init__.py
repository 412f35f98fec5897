"""The vault tool pack: Obsidian-style note tools confined to the trial's workspace.

Tool and parameter names are pinned (listed under "Vault tools" in the README): task
suites and agents' prompts written for Gemini Scribe depend on them. Besides the note
tools, the pack holds Scribe's own: memory, past sessions, skills and (offline) images,
which keep their state under Scribe's `gemini-scribe/` folder.
"""

from __future__ import annotations

from typing import Any

from trialrun.errors import UserError
from trialrun.tools._tool import Tool
from trialrun.tools._toolbox import tool_pack
from trialrun.tools.vault._files import (
    append_content,
    create_folder,
    delete_file,
    list_files,
    move_file,
    read_file,
    write_file,
)
from trialrun.tools.vault._images import generate_image
from trialrun.tools.vault._memory import read_memory, update_memory
from trialrun.tools.vault._meta import update_frontmatter
from trialrun.tools.vault._search import find_files_by_content, find_files_by_name
from trialrun.tools.vault._sessions import recall_sessions
from trialrun.tools.vault._skills import activate_skill

VAULT_TOOLS: list[Tool] = [
    read_file,
    list_files,
    write_file,
    append_content,
    delete_file,
    move_file,
    create_folder,
    update_frontmatter,
    find_files_by_name,
    find_files_by_content,
    update_memory,
    read_memory,
    recall_sessions,
    activate_skill,
    generate_image,
]

VAULT_TOOL_NAMES: tuple[str, ...] = tuple(t.name for t in VAULT_TOOLS)


def check_vault_options(options: dict[str, Any]) -> None:
    """`only` / `exclude`: lists of vault tool names (a misspelt name would drop a tool)."""
    unknown = set(options) - {"only", "exclude"}
    if unknown:
        raise UserError(
            f"tool pack vault: unknown option(s) {sorted(unknown)}; allowed: only, exclude"
        )
    for key in ("only", "exclude"):
        names = options.get(key)
        if names is None:
            continue
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise UserError(
                f"tool pack vault: {key} must be a list of tool names, e.g. [read_file]"
            )
        bad = [n for n in names if n not in VAULT_TOOL_NAMES]
        if bad:
            raise UserError(
                f"tool pack vault: {key}: {', '.join(map(repr, bad))} is no vault tool "
                f"(vault tools: {', '.join(VAULT_TOOL_NAMES)})"
            )


@tool_pack("vault", check_vault_options)
def vault_pack(options: dict[str, Any]) -> list[Tool]:
    """The vault tools. Options: `only: [names]` or `exclude: [names]` to narrow the set."""
    only = options.get("only")
    exclude = set(options.get("exclude") or ())
    tools = [t for t in VAULT_TOOLS if t.name not in exclude]
    if only is not None:
        tools = [t for t in tools if t.name in set(only)]
    return tools


__all__ = ["VAULT_TOOLS", "VAULT_TOOL_NAMES", "vault_pack"]
