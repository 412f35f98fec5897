"""Tool packs the agent may call: the vault pack, user Python functions, MCP servers."""

from trialrun.tools._frontmatter import FrontmatterError, parse_frontmatter, plain, type_name
from trialrun.tools._settings import ToolSettings
from trialrun.tools._tool import (
    DEFAULT_TOOL_TIMEOUT_S,
    TOOL_TIMEOUT_ENV,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    check_arguments,
    tool,
)
from trialrun.tools._toolbox import (
    TOOL_PACKS,
    Toolbox,
    configured_tool_pack,
    load_pack,
    pack_factory,
    tool_pack,
    tool_pack_problem,
)
from trialrun.tools.vault import VAULT_TOOL_NAMES

__all__ = [
    "DEFAULT_TOOL_TIMEOUT_S",
    "TOOL_TIMEOUT_ENV",
    "TOOL_PACKS",
    "VAULT_TOOL_NAMES",
    "FrontmatterError",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolSettings",
    "Toolbox",
    "check_arguments",
    "configured_tool_pack",
    "load_pack",
    "pack_factory",
    "parse_frontmatter",
    "plain",
    "tool",
    "tool_pack",
    "tool_pack_problem",
    "type_name",
]
