"""The `browser_navigate` tool pack: fetch a page and return its title and readable text.

No browser runs: the page is fetched over HTTP (`_web_access`: allowed hosts only, the
time limit, the size cut, redirects re-checked) and its HTML reduced to text (scripts,
styles and markup dropped; block elements become line breaks), cut at 20,000 characters.
Hosts come from the pack's `allow` option in a task, else `[tools.browser_navigate]
allow` in trialrun.toml, else the shared `[tools.http_request] allow`; with none each
call is a tool error the agent sees. The parameters are OpenJarvis's: `url`,
`wait_for` (accepted, ignored: a fetched page has loaded).
"""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from typing import Any

from trialrun.tools._settings import ToolSettings
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import configured_tool_pack
from trialrun.tools._web_access import (
    CALL_MARGIN_S,
    WebAccess,
    access_of,
    check_settings,
    fetch,
    first_allowing,
)

MAX_TEXT_CHARS = 20_000
TABLE = "tools.browser_navigate"
_SKIPPED = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCKS = {
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header",
    "footer", "nav", "main", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr",
}


class _Readable(HTMLParser):
    """Collects the title and the visible text of an HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.parts: list[str] = []
        self._skipping: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIPPED:
            self._skipping.append(tag)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif self._skipping and tag == self._skipping[-1]:
            self._skipping.pop()
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skipping:
            self.parts.append(data)


def readable_text(html: str) -> tuple[str, str]:
    """The page's title and its text, one block per line, blank runs collapsed."""
    parser = _Readable()
    parser.feed(html)
    parser.close()
    lines = (re.sub(r"\s+", " ", line).strip() for line in "".join(parser.parts).split("\n"))
    return parser.title.strip(), "\n".join(line for line in lines if line)


def build(access: WebAccess) -> Tool:
    async def browser_navigate(ctx: ToolContext, url: str, wait_for: str | None = None) -> str:
        """Navigate to a URL in the browser. Returns the page title and text content.

        Args:
            url: URL to navigate to.
            wait_for: Wait condition ('load', 'domcontentloaded', 'networkidle'); ignored.
        """
        got = await fetch(access, "GET", url)
        raw = got.body.decode("utf-8", "replace")
        if "html" in got.content_type or raw.lstrip()[:1] == "<":
            title, text = readable_text(raw)
        else:
            title, text = "", raw.strip()
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS] + f"\n\n[text cut at {MAX_TEXT_CHARS} characters]"
        elif got.truncated:
            text += f"\n\n[page cut at {access.max_bytes} bytes]"
        return f"URL: {got.url} (HTTP {got.status})\nTitle: {title}\n\n{text}"

    made = tool(browser_navigate, name="browser_navigate")
    assert isinstance(made, Tool)
    # a slow host ends as this pack's timeout error, not the toolbox's generic one
    return dataclasses.replace(made, timeout_s=access.timeout_s + CALL_MARGIN_S)


def check_options(options: dict[str, Any]) -> None:
    check_settings("browser_navigate", options)


@configured_tool_pack("browser_navigate", check_options)
def browser_navigate_pack(options: dict[str, Any], settings: ToolSettings) -> list[Tool]:
    table = first_allowing(settings.browser_navigate, settings.http_request)
    return [build(access_of("browser_navigate", options, table, TABLE))]
