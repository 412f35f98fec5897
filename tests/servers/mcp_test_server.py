"""A stdio MCP server written for trialrun's tests: add, echo, where, fail, counter."""

from __future__ import annotations

import os

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server
    from mcp.server.fastmcp.exceptions import ToolError

server = _Server("trialrun-test")
_count = {"n": 0}


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def where() -> str:
    """The server's working directory."""
    return os.getcwd()


@server.tool()
def counter() -> str:
    """How many times counter was called in this server process."""
    _count["n"] += 1
    return str(_count["n"])


@server.tool()
def fail(reason: str = "boom") -> str:
    """Always fails (a ToolError's message reaches the client)."""
    raise ToolError(reason)


if __name__ == "__main__":
    server.run()
