"""Calling one tool of a pack, as the agent loop does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.tools import ToolContext, ToolSettings, load_pack
from trialrun.tools._tool import ToolResult


def settings(toml: dict[str, Any]) -> ToolSettings:
    """The ToolSettings of a trialrun.toml holding `toml` (its tables as a dict)."""
    return ToolSettings.from_config(ProjectConfig(Path("trialrun.toml"), toml))


def call(
    pack: str,
    ctx: ToolContext | Path,
    options: dict[str, Any] | None = None,
    configured: ToolSettings | None = None,
    **arguments: Any,
) -> ToolResult:
    """One call of `pack`'s tool, built with the task `options` and the run's settings."""
    (tool,) = load_pack(pack, options or {}, configured)
    context = ctx if isinstance(ctx, ToolContext) else ToolContext(ctx)
    return asyncio.run(tool.call(context, arguments))
