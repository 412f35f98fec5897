"""Tool packs the agent may call: the vault pack, user Python functions, MCP servers."""

from trialrun.tools._tool import Tool, ToolContext, ToolError, ToolResult, check_arguments, tool
from trialrun.tools._toolbox import TOOL_PACKS, Toolbox, load_pack, tool_pack

__all__ = [
    "TOOL_PACKS",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "Toolbox",
    "check_arguments",
    "load_pack",
    "tool",
    "tool_pack",
]
