"""The `web_search` tool pack: a web search through a pluggable provider.

The provider comes from the pack's options in a task (`{web_search: {provider: searxng,
url: "…"}}`) or else from trialrun.toml (`[tools.web_search] provider = "searxng"`,
`url = "http://localhost:8888/search"`, given in the run's `ToolSettings`). With none
configured, a misconfigured one or no
network, each call is a tool error the agent sees, never a refused suite. The parameters
are OpenJarvis's (`query`, `max_results`).
"""

from __future__ import annotations

from typing import Any

from trialrun.errors import ToolError, UserError
from trialrun.tools._search_providers import SEARCH_PROVIDERS, SearchProvider, SearchResult
from trialrun.tools._settings import WEB_SEARCH_KEYS, ToolSettings, provider_problem
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import configured_tool_pack

DEFAULT_RESULTS = 5
MAX_RESULTS = 20
MAX_SNIPPET_CHARS = 500
SETTINGS = WEB_SEARCH_KEYS


def settings_of(options: dict[str, Any], settings: ToolSettings) -> dict[str, Any]:
    """The task's options when they name a provider, else trialrun.toml's table."""
    if options.get("provider") is not None:
        return options
    return settings.web_search


def provider_of(settings: dict[str, Any]) -> SearchProvider:
    """The configured provider, or the ToolError saying how to configure one."""
    name = settings.get("provider")
    if name is None:
        raise ToolError(
            'web_search: no provider configured; set [tools.web_search] provider = "searxng" '
            'and url = "http://HOST:PORT/search" in trialrun.toml'
        )
    factory = SEARCH_PROVIDERS.get(name) if isinstance(name, str) else None
    if factory is None:
        raise ToolError(
            f"web_search: unknown provider {name!r} in [tools.web_search]; known: "
            f"{', '.join(SEARCH_PROVIDERS.names())}"
        )
    return factory(settings)


def render(results: list[SearchResult]) -> str:
    if not results:
        return "No results found."
    lines = []
    for rank, hit in enumerate(results, 1):
        snippet = hit.snippet
        if len(snippet) > MAX_SNIPPET_CHARS:
            snippet = snippet[: MAX_SNIPPET_CHARS - 1] + "…"
        lines.append(f"{rank}. {hit.title or hit.url}\n   {hit.url}\n   {snippet}".rstrip())
    return "\n".join(lines)


def build(settings: dict[str, Any]) -> Tool:
    async def web_search(ctx: ToolContext, query: str, max_results: int | None = None) -> str:
        """Search the web for current information. Returns relevant search results.

        Args:
            query: Search query.
            max_results: Maximum results to return (default 5, at most 20).
        """
        if not isinstance(query, str) or not query.strip():
            raise ToolError("web_search: the query is empty; give words to search for")
        wanted = DEFAULT_RESULTS if max_results is None else max_results
        if not 1 <= wanted <= MAX_RESULTS:
            raise ToolError(f"web_search: max_results must be between 1 and {MAX_RESULTS}")
        provider = provider_of(settings)
        return render(await provider.search(query.strip(), wanted))

    made = tool(web_search, name="web_search")
    assert isinstance(made, Tool)
    return made


def check_options(options: dict[str, Any]) -> None:
    problem = provider_problem(options, SETTINGS, SEARCH_PROVIDERS)
    if problem is not None:
        raise UserError(f"tool pack web_search: {problem}")


@configured_tool_pack("web_search", check_options)
def web_search_pack(options: dict[str, Any], settings: ToolSettings) -> list[Tool]:
    return [build(settings_of(options, settings))]
