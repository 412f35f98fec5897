"""The lean HTTP path of the JSON-over-HTTP providers: one pooled httpx client, bytes in
and out, and the SDK's error shapes (so retries and messages stay as they were).

A request body is built by `json.dumps` directly; the part that never changes within a
task (its tool schemas) is serialised once and spliced in (`JsonCache`). Errors look as
the openai SDK's did: an HTTP error is `StatusError` ("Error code: 404 - <the server's
message>", with `status_code` and `response`), a dropped connection `APIConnectionError`
("Connection error."), a transport timeout `APITimeoutError` ("Request timed out.").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

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
        body = json.loads(text)
        error = body.get("error", body) if isinstance(body, dict) else None
        detail = error.get("message") if isinstance(error, dict) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
    return StatusError(message, status_code=response.status_code, response=response, body=body)


class JsonCache:
    """JSON text of objects that recur (a task's tool list), made once per object."""

    def __init__(self, limit: int = 256) -> None:
        self._items: dict[int, tuple[Any, str]] = {}
        self._limit = limit

    def dumps(self, obj: Any) -> str:
        hit = self._items.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        if len(self._items) >= self._limit:
            self._items.clear()
        self._items[id(obj)] = (obj, text)  # the object is held: its id stays its own
        return text


def request_body(fields: dict[str, Any], spliced: dict[str, str]) -> bytes:
    """`fields` as JSON with `spliced` (key → JSON text made earlier) added verbatim."""
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    if spliced:
        extra = ",".join(f"{json.dumps(k)}:{v}" for k, v in spliced.items())
        text = f"{text[:-1]},{extra}}}" if len(text) > 2 else f"{{{extra}}}"
    return text.encode("utf-8", "backslashreplace")


class LeanClient:
    """One httpx.AsyncClient per event loop (a client is bound to its loop), its pool
    sized to the trials in flight; HTTP/2 where the `h2` package is installed and the
    server offers it (TLS), HTTP/1.1 keep-alive otherwise."""

    def __init__(self, headers: dict[str, str]) -> None:
        self._headers = headers
        self._clients: dict[int, Any] = {}
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

    async def post_json(self, url: str, body: bytes, timeout_s: float) -> Any:
        """POST a JSON body; the parsed JSON answer, or one of this module's errors."""
        import httpx

        client = self._client()
        try:
            response = await client.post(url, content=body, timeout=timeout_s)
        except httpx.TimeoutException:
            raise APITimeoutError() from None
        except httpx.TransportError:
            raise APIConnectionError() from None
        if response.status_code >= 400:
            raise status_error(response)
        try:
            return json.loads(response.content)
        except ValueError:
            return response.text

    async def aclose(self) -> None:
        clients, self._clients = self._clients, {}
        for client in clients.values():
            with contextlib.suppress(Exception):  # a client bound to a finished loop
                await client.aclose()
