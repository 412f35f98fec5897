"""Calling one tool of a pack, as the agent loop does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from trialrun.tools import ToolContext, load_pack
from trialrun.tools._tool import ToolResult


def call(
    pack: str,
    ctx: ToolContext | Path,
    options: dict[str, Any] | None = None,
    **arguments: Any,
) -> ToolResult:
    (tool,) = load_pack(pack, options or {})
    context = ctx if isinstance(ctx, ToolContext) else ToolContext(ctx)
    return asyncio.run(tool.call(context, arguments))
