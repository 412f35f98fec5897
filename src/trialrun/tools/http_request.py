"""The `http_request` tool pack: one HTTP request to an allowed host.

Hosts come from `allow` (the pack's options in a task, else `[tools.http_request] allow`
in trialrun.toml, given in the run's `ToolSettings`; see `_web_access`); with none
allowed each call is a tool error the agent sees, never a refused suite. The answer is
the status line and the body, cut at `max_bytes` (1 MiB) with a note; the time limit is
`timeout_s` (30 s; a call's `timeout` may only shorten it). The parameters are
OpenJarvis's: `url`, `method`, `headers`, `body`, `timeout`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from trialrun.errors import ToolError
from trialrun.tools._settings import ToolSettings
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import configured_tool_pack
from trialrun.tools._web_access import CALL_MARGIN_S, WebAccess, access_of, check_settings, fetch

METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD")
TABLE = "tools.http_request"


def build(access: WebAccess) -> Tool:
    async def http_request(
        ctx: ToolContext,
        url: str,
        method: str = "GET",
        headers: dict[str, Any] | None = None,
        body: str | None = None,
        timeout: int | None = None,
    ) -> str:
        """Make an HTTP request to a URL. Supports GET, POST, PUT, DELETE, PATCH and HEAD.

        Args:
            url: The URL to send the request to.
            method: HTTP method (GET, POST, PUT, DELETE, PATCH, HEAD). Defaults to GET.
            headers: Optional HTTP headers as key-value pairs.
            body: Optional request body (for POST, PUT, PATCH).
            timeout: Request timeout in seconds (at most the configured limit).
        """
        verb = (method or "GET").upper()
        if verb not in METHODS:
            raise ToolError(
                f"http_request: unsupported method {method!r}; use {', '.join(METHODS)}"
            )
        if timeout is not None and timeout < 1:
            raise ToolError("http_request: timeout must be at least 1 second")
        sent = {str(k): str(v) for k, v in (headers or {}).items()}
        got = await fetch(access, verb, url, sent, body, float(timeout) if timeout else None)
        text = got.body.decode("utf-8", "replace")
        cut = f"\n\n[response cut at {access.max_bytes} bytes]" if got.truncated else ""
        kind = f" ({got.content_type})" if got.content_type else ""
        return f"HTTP {got.status}{kind}\n\n{text}{cut}"

    made = tool(http_request, name="http_request")
    assert isinstance(made, Tool)
    # a slow host ends as this pack's timeout error, not the toolbox's generic one
    return dataclasses.replace(made, timeout_s=access.timeout_s + CALL_MARGIN_S)


def check_options(options: dict[str, Any]) -> None:
    check_settings("http_request", options)


@configured_tool_pack("http_request", check_options)
def http_request_pack(options: dict[str, Any], settings: ToolSettings) -> list[Tool]:
    return [build(access_of("http_request", options, settings.http_request, TABLE))]
