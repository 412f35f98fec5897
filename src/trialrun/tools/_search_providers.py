"""Web search providers for the `web_search` tool: a protocol and a registry.

A provider is made from its settings (the `[tools.web_search]` table of trialrun.toml,
or the pack's options in a task) and answers `search(query, max_results)` with results.
Third parties register through the `trialrun.search_providers` entry point group.
Built in: `searxng`, any SearxNG-compatible JSON endpoint (`GET URL?q=…&format=json`
answering `{"results": [{"title", "url", "content"}, …]}`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from trialrun.core import Registry
from trialrun.errors import ToolError

DEFAULT_SEARCH_TIMEOUT_S = 20.0
MAX_RESPONSE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchProvider(Protocol):
    async def search(self, query: str, max_results: int) -> list[SearchResult]: ...


ProviderFactory = Callable[[dict[str, Any]], SearchProvider]

SEARCH_PROVIDERS: Registry[ProviderFactory] = Registry(
    "search provider", "trialrun.search_providers", builtin_modules=()
)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class SearxngProvider:
    """A SearxNG-compatible JSON search endpoint."""

    url: str
    timeout_s: float = DEFAULT_SEARCH_TIMEOUT_S

    async def search(self, query: str, max_results: int) -> list[SearchResult]:
        import httpx  # loaded on first use: it also loads rich, click and pygments (~8 MiB)
        params = {"q": query, "format": "json"}
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.get(self.url, params=params)
        except httpx.HTTPError as exc:
            raise ToolError(
                f"web_search: the search endpoint {self.url} did not answer "
                f"({type(exc).__name__}: {exc}); no network, or the endpoint is down"
            ) from None
        if response.status_code != 200:
            raise ToolError(
                f"web_search: the search endpoint {self.url} answered HTTP "
                f"{response.status_code}"
            )
        if len(response.content) > MAX_RESPONSE_BYTES:
            raise ToolError(f"web_search: the answer of {self.url} is too large")
        try:
            body = response.json()
        except ValueError:
            raise ToolError(
                f"web_search: the search endpoint {self.url} answered no JSON; "
                "is it a SearxNG endpoint with the json format enabled?"
            ) from None
        rows = body.get("results") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise ToolError(f"web_search: the answer of {self.url} has no 'results' list")
        found = [
            SearchResult(_text(r.get("title")), _text(r.get("url")), _text(r.get("content")))
            for r in rows
            if isinstance(r, dict)
        ]
        return [r for r in found if r.url or r.title][:max_results]


def searxng(settings: dict[str, Any]) -> SearchProvider:
    url = settings.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ToolError(
            'web_search: provider "searxng" needs url = "http://HOST:PORT/search" '
            "(the JSON search endpoint) in [tools.web_search]"
        )
    timeout = settings.get("timeout_s", DEFAULT_SEARCH_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ToolError("web_search: timeout_s must be a number of seconds > 0")
    return SearxngProvider(url, float(timeout))


SEARCH_PROVIDERS.add("searxng", searxng)
