"""The frontmatter tool: set one YAML frontmatter key of a note, keeping everything else."""

from __future__ import annotations

import json

from trialrun.tools._frontmatter import (
    FrontmatterError,
    set_frontmatter_key,
    type_name,
    yaml_value,
)
from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import note, read_text, rel, require_file_path


@tool
def update_frontmatter(
    ctx: ToolContext, path: str, key: str, value: str | int | float | bool | list[str]
) -> str:
    """Set one key in a note's YAML frontmatter; other keys, their order and the body are kept.

    Args:
        path: Note path relative to the vault root (".md" may be omitted).
        key: Frontmatter key, e.g. "status".
        value: New value: a string, number, boolean or list;
            a "YYYY-MM-DD" string is stored as a date.
    """
    require_file_path("update_frontmatter", path)
    if not isinstance(key, str) or not key.strip():
        raise ToolError("update_frontmatter: key must be a non-empty string")
    if isinstance(value, dict):
        raise ToolError("update_frontmatter: value must be a string, number, boolean or list")
    target = note("update_frontmatter", ctx, path, must_exist=True)
    if target.is_dir():
        raise ToolError(f"update_frontmatter: {path!r} is a folder, not a note")
    try:
        text = read_text(target)
    except ToolError as exc:
        raise ToolError(f"update_frontmatter: {path!r} is a {exc}") from None
    try:
        new = set_frontmatter_key(text, key, value)
    except FrontmatterError as exc:
        raise ToolError(f"update_frontmatter: {rel(ctx, target)}: {exc}") from None
    target.write_text(new, encoding="utf-8", newline="")
    stored = yaml_value(value)
    shown = json.dumps(value, ensure_ascii=False)
    return f"Set {key} = {shown} ({type_name(stored)}) in {rel(ctx, target)}"
