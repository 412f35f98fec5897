"""The `think` tool pack: a scratchpad. The thought is recorded in the transcript (as the
call's arguments), nothing changes, and the agent gets a short acknowledgement.

The parameter is OpenJarvis's (`thought`), so a model prompted as there calls it as is.
"""

from __future__ import annotations

from typing import Any

from trialrun.errors import ToolError
from trialrun.tools._options import no_options
from trialrun.tools._tool import Tool, tool
from trialrun.tools._toolbox import tool_pack


@tool
def think(thought: str) -> str:
    """A reasoning scratchpad: think a problem through step by step. Nothing changes.

    Args:
        thought: Your reasoning or thought process.
    """
    if not isinstance(thought, str) or not thought.strip():
        raise ToolError("think: the thought is empty; write your reasoning in 'thought'")
    return f"Thought recorded ({len(thought)} characters)."


@tool_pack("think", no_options("think"))
def think_pack(options: dict[str, Any]) -> list[Tool]:
    return [think]
