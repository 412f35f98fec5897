"""The lean HTTP path of the JSON-over-HTTP providers: one pooled client, bytes in and
out, and the SDK's error shapes (so retries and messages stay as they were).

Plain `http://` servers (vLLM, llama.cpp, Ollama, LM Studio on a LAN or loopback) get
`_plain.PlainPool`: HTTP/1.1 keep-alive on asyncio's transports, a pool of idle
connections sized to the trials in flight. httpx's pool re-checks every connection on
every request (a syscall each), which at 64+ in flight costs more CPU than the trials
themselves; `https://` (TLS, HTTP/2 where `h2` is installed) and any proxy settings
go through one shared httpx.AsyncClient.

A request body is built by `compact_json` (orjson) directly; the part that never changes within a
task (its tool schemas) is serialised once and spliced in (`JsonCache`). Errors look as
the openai SDK's did: an HTTP error is `StatusError` ("Error code: 404 - <the server's
message>", with `status_code` and `response`), a dropped connection `APIConnectionError`
("Connection error."), a transport timeout `APITimeoutError` ("Request timed out.").

No answer is read past `[limits] max_body_mb` (`ReadLimits`, 32 MiB by default) on
either path: a body declared larger is refused before it is read, one that grows larger
is cut off there (the connection dropped), as `ResponseTooLarge`, which is not retried;
so is JSON too complex to hold (`parse_json`: bounded in objects and nesting).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from trialrun.core import compact_json
from trialrun.models._body import JsonTooComplex, ResponseTooLarge, parse_json
from trialrun.models._limits import ReadLimits
from trialrun.models._plain import (
    BodyTooLarge,
    PlainPool,
    PlainResponse,
    TransportError,
    TransportTimeout,
)

# connections kept per client when nobody sized the pool (`LeanClient.size`)
DEFAULT_POOL = 16


class StatusError(Exception):
    """An HTTP status >= 400, worded as the openai SDK words it."""

    def __init__(self, message: str, *, status_code: int, response: Any, body: Any) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.response = response
        self.body = body


class APIConnectionError(Exception):
    """The request did not reach the server or its answer was cut off."""

    def __init__(self, message: str = "Connection error.") -> None:
        super().__init__(message)


class APITimeoutError(APIConnectionError):
    """The transport's own timeout (the attempt's bound is `with_retries`')."""

    def __init__(self) -> None:
        super().__init__("Request timed out.")


def status_error(response: Any) -> StatusError:
    """The SDK's wording: "Error code: N", plus " - message" when the JSON body has one."""
    message = f"Error code: {response.status_code}"
    text = response.text.strip()
    body: Any = text
    with contextlib.suppress(ValueError):
        body = parse_json(text)
        # Gemini's OpenAI-compatible endpoint wraps its error in a list of one
        first = body[0] if isinstance(body, list) and len(body) == 1 else body
        error = first.get("error", first) if isinstance(first, dict) else None
        detail = error.get("message") if isinstance(error, dict) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
    return StatusError(message, status_code=response.status_code, response=response, body=body)


class JsonCache:
    """JSON text of a tool list, made once per task: trials build their lists afresh,
    but from the task's tools, whose names, descriptions and parameter schemas (the
    same objects) make the key. A list of another shape is serialised every time.
    `convert` (e.g. to Anthropic's or Gemini's tool shape) runs before serialising, so
    it too runs once per task."""

    def __init__(
        self, limit: int = 256, convert: Callable[[list[Any]], Any] | None = None
    ) -> None:
        self._items: dict[tuple[Any, ...], tuple[list[Any], str]] = {}
        self._lists: dict[int, tuple[list[Any], str]] = {}  # a trial's own list, its turns
        self._limit = limit
        self._convert = convert

    def dumps(self, tools: list[Any]) -> str:
        seen = self._lists.get(id(tools))
        if seen is not None and seen[0] is tools:
            return seen[1]
        text = self._dumps(tools)
        if len(self._lists) >= 4 * self._limit:
            self._lists.clear()
        self._lists[id(tools)] = (tools, text)  # the list is held: its id stays its own
        return text

    def _dumps(self, tools: list[Any]) -> str:
        key = _tools_key(tools)
        hit = self._items.get(key) if key is not None else None
        if hit is not None:
            return hit[1]
        value = self._convert(tools) if self._convert is not None else tools
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if key is not None:
            if len(self._items) >= self._limit:
                self._items.clear()
            held = [spec["function"].get("parameters") for spec in tools]  # ids stay theirs
            self._items[key] = (held, text)
        return text


def _tools_key(tools: list[Any]) -> tuple[Any, ...] | None:
    parts = []
    for spec in tools:
        function = spec.get("function") if isinstance(spec, dict) else None
        if not isinstance(function, dict) or len(spec) != 2 or len(function) != 3:
            return None
        name, description = function.get("name"), function.get("description")
        if not isinstance(name, str) or not isinstance(description, str | None):
            return None
        parts.append((spec.get("type"), name, description, id(function.get("parameters"))))
    return tuple(parts)


def request_body(fields: dict[str, Any], spliced: dict[str, str]) -> bytes:
    """`fields` as JSON with `spliced` (key → JSON text made earlier) added verbatim."""
    data = compact_json(fields)
    if spliced:
        extra = ",".join(f"{json.dumps(k)}:{v}" for k, v in spliced.items()).encode(
            "utf-8", "backslashreplace"
        )
        data = data[:-1] + b"," + extra + b"}" if len(data) > 2 else b"{" + extra + b"}"
    return data


class LeanClient:
    """One httpx.AsyncClient per event loop (a client is bound to its loop), its pool
    sized to the trials in flight; HTTP/2 where the `h2` package is installed and the
    server offers it (TLS), HTTP/1.1 keep-alive otherwise."""

    def __init__(self, headers: dict[str, str], max_body: int | None = None) -> None:
        self._headers = headers
        # the largest answer read (bytes): the provider's [limits]; the default if not given
        self.max_body = max_body if max_body is not None else ReadLimits().max_body_bytes
        self._clients: dict[int, Any] = {}
        self._plain: dict[tuple[int, str, int], PlainPool] = {}
        self._routes: dict[tuple[int, str], tuple[PlainPool, str] | None] = {}
        self._pool = DEFAULT_POOL

    def size(self, in_flight: int) -> None:
        """Keep up to `in_flight` connections (applies to clients made from now on)."""
        self._pool = max(1, int(in_flight))

    def _client(self) -> Any:
        loop_id = id(asyncio.get_running_loop())
        client = self._clients.get(loop_id)
        if client is None:
            import httpx

            try:
                import h2  # noqa: F401

                http2 = True
            except ImportError:
                http2 = False
            limits = httpx.Limits(
                max_connections=self._pool, max_keepalive_connections=self._pool
            )
            client = httpx.AsyncClient(
                headers=self._headers, limits=limits, http2=http2
            )
            self._clients = {loop_id: client}
        return client

    def _plain_pool(self, url: str) -> tuple[PlainPool, str] | None:
        """The keep-alive pool for a plain-HTTP URL (None: https, or a proxy is set).
        Decided once per URL and event loop: the environment is not read per request."""
        loop_id = id(asyncio.get_running_loop())
        if (loop_id, url) in self._routes:
            return self._routes[(loop_id, url)]
        route: tuple[PlainPool, str] | None
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname or _proxied():
            route = None
        else:
            port = parts.port or 80
            key = (loop_id, parts.hostname, port)
            pool = self._plain.get(key)
            if pool is None:
                pool = PlainPool(
                    parts.hostname, port, self._headers, self._pool, self.max_body
                )
                self._plain = {k: v for k, v in self._plain.items() if k[0] == loop_id}
                self._plain[key] = pool
            route = (pool, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
        self._routes = {k: v for k, v in self._routes.items() if k[0] == loop_id}
        self._routes[(loop_id, url)] = route
        return route

    async def post_json(self, url: str, body: bytes, timeout_s: float) -> Any:
        """POST a JSON body; the parsed JSON answer, or one of this module's errors."""
        plain = self._plain_pool(url)
        if plain is not None:
            pool, target = plain
            try:
                response: Any = await pool.post(target, body, timeout_s)
            except TransportTimeout:
                raise APITimeoutError() from None
            except BodyTooLarge:
                raise ResponseTooLarge.over(self.max_body) from None
            except TransportError:
                raise APIConnectionError() from None
        else:
            response = await self._post_httpx(url, body, timeout_s)
        if response.status_code >= 400:
            raise status_error(response)
        try:
            return parse_json(response.content)
        except JsonTooComplex as exc:
            raise ResponseTooLarge(f"response {exc}") from None
        except ValueError:
            return response.text

    async def _post_httpx(self, url: str, body: bytes, timeout_s: float) -> PlainResponse:
        import httpx

        client = self._client()
        try:
            async with client.stream("POST", url, content=body, timeout=timeout_s) as response:
                content = await read_capped(response, self.max_body)
                headers = {k.lower(): v for k, v in response.headers.items()}
                return PlainResponse(response.status_code, headers, content)
        except httpx.TimeoutException:
            raise APITimeoutError() from None
        except httpx.TransportError:
            raise APIConnectionError() from None

    async def aclose(self) -> None:
        pools, self._plain, self._routes = self._plain, {}, {}
        for pool in pools.values():
            pool.close()
        clients, self._clients = self._clients, {}
        for client in clients.values():
            with contextlib.suppress(Exception):  # a client bound to a finished loop
                await client.aclose()


async def read_capped(response: Any, limit: int) -> bytes:
    """An httpx streaming response's body (decoded), or ResponseTooLarge as soon as it
    is declared or has grown over `limit` bytes."""
    declared = response.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge.over(limit)
    content = bytearray()
    async for chunk in response.aiter_bytes():
        content += chunk
        if len(content) > limit:
            raise ResponseTooLarge.over(limit)
    return bytes(content)


def _proxied() -> bool:
    """Whether the environment names a proxy for plain HTTP (then httpx honours it)."""
    return any(os.environ.get(v) for v in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"))

