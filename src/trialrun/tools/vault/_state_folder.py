"""Where Gemini Scribe keeps its own state inside the vault (its `historyFolder` setting).

Scribe's memory, session, skill and image tools read and write fixed places under this
folder, and its eval tasks seed them there (`setup: [{path: gemini-scribe/AGENTS.md, …}]`).
"""

from __future__ import annotations

from pathlib import Path

from trialrun.tools._tool import ToolContext, ToolError
from trialrun.tools.vault._common import inside

STATE_FOLDER = "gemini-scribe"
MEMORY_FILE = f"{STATE_FOLDER}/AGENTS.md"
SESSIONS_FOLDER = f"{STATE_FOLDER}/Agent-Sessions"
SKILLS_FOLDER = f"{STATE_FOLDER}/Skills"
IMAGES_FOLDER = f"{STATE_FOLDER}/Background-Tasks"


def state_path(tool_name: str, ctx: ToolContext, path: str) -> Path:
    """A path under the state folder, confined to the workspace like every vault path."""
    return inside(tool_name, ctx, path, allow_root=False)


def existing_folder(tool_name: str, ctx: ToolContext, path: str) -> Path | None:
    """The folder at `path` inside the workspace; None when absent; a file there is an error."""
    folder = state_path(tool_name, ctx, path)
    if not folder.exists():
        return None
    if not folder.is_dir():
        raise ToolError(f"{tool_name}: {path!r} is a file, not a folder")
    return folder
