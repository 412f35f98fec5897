"""Web access for the `http_request` and `browser_navigate` tools: an allow list of hosts,
a bounded fetch (time limit, response size cut) and redirects re-checked at every hop.

Hosts are allowed only when configured: `allow = ["api.example.com", "*.example.org"]`
in the pack's options in a task, else in the pack's table of trialrun.toml (a `WebTable`
of the run's `ToolSettings`, read once when the run starts). A pattern is
a host name (any port), `*.DOMAIN` (every subdomain of DOMAIN, not DOMAIN itself) or `*`
(every host). Nothing configured: every call is a tool error naming the setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from trialrun.errors import ToolError, UserError

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 1024 * 1024
MAX_REDIRECTS = 5
CALL_MARGIN_S = 5.0
SETTINGS = ("allow", "timeout_s", "max_bytes")
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True, slots=True)
class WebTable:
    """A web pack's table of trialrun.toml (`[tools.http_request]`, …), checked; None
    where it says nothing."""

    allow: tuple[str, ...] | None = None
    timeout_s: float | None = None
    max_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class WebAccess:
    """Which hosts a pack may reach, and within which limits."""

    pack: str
    allow: tuple[str, ...]
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_bytes: int = DEFAULT_MAX_BYTES
    config_table: str = ""

    def check_url(self, url: str) -> None:
        """A ToolError unless `url` is http(s) to an allowed host."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolError(f"{self.pack}: {url!r} is no http(s) URL with a host")
        host = parts.hostname.lower()
        if not self.allow:
            raise ToolError(
                f"{self.pack}: no host is allowed; set [{self.config_table}] allow = "
                f'["{host}"] in trialrun.toml (or the pack\'s allow option in the task)'
            )
        if not any(host_matches(p, host) for p in self.allow):
            raise ToolError(
                f"{self.pack}: host {host!r} is not allowed (allowed: {', '.join(self.allow)})"
            )


@dataclass(frozen=True, slots=True)
class Fetched:
    status: int
    url: str
    content_type: str
    body: bytes
    truncated: bool


def host_matches(pattern: str, host: str) -> bool:
    pattern = pattern.lower().strip()
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def settings_problem(options: dict[str, Any]) -> str | None:
    """What is wrong with a web pack's settings (its task options or its table), or None."""
    unknown = sorted(set(options) - set(SETTINGS))
    if unknown:
        return f"unknown option(s) {unknown}; allowed: {', '.join(SETTINGS)}"
    allow = options.get("allow")
    if allow is not None and (
        not isinstance(allow, list) or not all(isinstance(p, str) and p for p in allow)
    ):
        return 'allow must be a list of host patterns, e.g. ["api.example.com", "*.example.org"]'
    for key in ("timeout_s", "max_bytes"):
        value = options.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or value <= 0
        ):
            return f"{key} must be a number > 0"
    return None


def check_settings(pack: str, options: dict[str, Any]) -> None:
    """A UserError (one line) for options `WebAccess` would refuse."""
    problem = settings_problem(options)
    if problem is not None:
        raise UserError(f"tool pack {pack}: {problem}")


def web_table(settings: dict[str, Any]) -> WebTable:
    """Checked settings (`settings_problem` found nothing) as a `WebTable`."""
    allow = settings.get("allow")
    timeout_s, max_bytes = settings.get("timeout_s"), settings.get("max_bytes")
    return WebTable(
        tuple(allow) if allow is not None else None,
        float(timeout_s) if timeout_s is not None else None,
        int(max_bytes) if max_bytes is not None else None,
    )


def first_allowing(*tables: WebTable) -> WebTable:
    """The first table that says `allow` (e.g. `[tools.browser_navigate]`, else
    `[tools.http_request]`); none: an empty one."""
    return next((table for table in tables if table.allow is not None), WebTable())


def access_of(pack: str, options: dict[str, Any], table: WebTable, table_name: str) -> WebAccess:
    """The pack's access: its task options (checked) over its trialrun.toml `table` when
    they do not say `allow` themselves. `table_name` is what a refusal tells to set."""
    configured = WebTable() if options.get("allow") is not None else table
    own = web_table(options)
    timeout_s = own.timeout_s or configured.timeout_s or DEFAULT_TIMEOUT_S
    return WebAccess(
        pack,
        own.allow if own.allow is not None else (configured.allow or ()),
        timeout_s,
        own.max_bytes or configured.max_bytes or DEFAULT_MAX_BYTES,
        table_name,
    )


async def fetch(
    access: WebAccess,
    method: str,
    url: str,
    headers: dict[str, str] | None = None,
    body: str | None = None,
    timeout_s: float | None = None,
) -> Fetched:
    """One request within the access's limits; redirects followed (at most 5), each hop's
    host checked again. Network failures and timeouts are ToolErrors."""
    import httpx  # loaded on first use: it also loads rich, click and pygments (~8 MiB)
    limit = min(timeout_s or access.timeout_s, access.timeout_s)
    content = body.encode("utf-8") if body is not None else None
    try:
        async with httpx.AsyncClient(timeout=limit, follow_redirects=False) as client:
            for _ in range(MAX_REDIRECTS + 1):
                access.check_url(url)
                request = client.build_request(method, url, headers=headers, content=content)
                response = await client.send(request, stream=True)
                try:
                    location = response.headers.get("location")
                    if response.status_code in _REDIRECTS and location:
                        url = urljoin(str(response.url), location)
                        if response.status_code in (301, 302, 303) and method != "HEAD":
                            method, content = "GET", None
                        continue
                    data, truncated = await _read_bounded(response, access.max_bytes)
                    return Fetched(
                        response.status_code, str(response.url),
                        response.headers.get("content-type", ""), data, truncated,
                    )
                finally:
                    await response.aclose()
    except httpx.TimeoutException:
        raise ToolError(f"{access.pack}: no answer from {url} within {limit:g}s") from None
    except httpx.HTTPError as exc:
        raise ToolError(
            f"{access.pack}: {url} did not answer ({type(exc).__name__}: {exc})"
        ) from None
    raise ToolError(f"{access.pack}: more than {MAX_REDIRECTS} redirects from {url}")


async def _read_bounded(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False
