"""`PlainPool`: HTTP/1.1 keep-alive POSTs to one plain-HTTP server, on asyncio transports.

One request at a time per connection; idle connections wait in a list (most recently
used first), at most `size` connections exist at once. A response is read whole
(`content-length`, chunked, or until the server closes), up to `max_body` bytes: a body
declared or grown larger ends the exchange (`BodyTooLarge`) and its connection, and the
rest is never read. Chunks are taken off as they complete, so no byte is parsed twice.
A kept connection that the
server has closed in the meantime fails before its first byte: the request is sent once
more on a new connection, as browsers and httpx do. Errors are `TransportError` (no
answer) and `TransportTimeout` (the transport's own bound); the caller words them.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import cast

from trialrun.models._limits import DEFAULT_MAX_BODY_MB, MIB

MAX_HEAD = 64 * 1024  # bytes of status line + headers before the answer is refused


class TransportError(Exception):
    """The request was not answered (refused, reset, closed, unreadable)."""


class TransportTimeout(TransportError):
    """No whole answer within the transport's time limit."""


class BodyTooLarge(TransportError):
    """The answer's body is over the pool's `max_body` (declared, or as it came)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"response body over {limit} bytes")
        self.limit = limit


@dataclass(slots=True)
class PlainResponse:
    """What the callers read of an answer: status, headers (lower-case names), body."""

    status_code: int
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class _Connection(asyncio.Protocol):
    """One HTTP/1.1 connection: `send` a request, await the answer."""

    def __init__(self, max_body: int) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self._max_body = max_body
        self._buf = bytearray()
        self._body = bytearray()  # a chunked body's data so far
        self._waiter: asyncio.Future[PlainResponse] | None = None
        self._head: PlainResponse | None = None
        self._length: int | None = None
        self._chunked = False
        self._keep = True
        self.got_bytes = False

    # --- asyncio.Protocol ---
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's are not subclasses of asyncio.Transport)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.got_bytes = True
        self._buf += data
        try:
            self._parse()
        except BodyTooLarge as exc:
            self._fail(exc)
            self.close()
        except (ValueError, IndexError) as exc:
            self._fail(TransportError(f"unreadable HTTP answer ({exc})"))
            self.close()

    def eof_received(self) -> bool | None:
        if self._head is not None and self._length is None and not self._chunked:
            self._finish(bytes(self._buf))  # a body that ends with the connection
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(TransportError(str(exc) if exc else "the server closed the connection"))

    # --- requests ---
    def send(self, request: bytes) -> asyncio.Future[PlainResponse]:
        loop = asyncio.get_running_loop()
        self._waiter = loop.create_future()
        self._buf.clear()
        self._body.clear()
        self._head, self._length, self._chunked, self._keep = None, None, False, True
        self.got_bytes = False
        assert self.transport is not None
        self.transport.write(request)
        return self._waiter

    @property
    def reusable(self) -> bool:
        return self._keep and not self.closed and not (
            self.transport is None or self.transport.is_closing()
        )

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)

    def _finish(self, body: bytes) -> None:
        head, self._head = self._head, None
        if head is None or self._waiter is None or self._waiter.done():
            return
        head.content = body
        self._waiter.set_result(head)

    def _parse(self) -> None:
        if self._head is None:
            end = self._buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buf) > MAX_HEAD:
                    raise ValueError("headers too long")
                return
            lines = bytes(self._buf[:end]).decode("latin-1").split("\r\n")
            del self._buf[: end + 4]
            status = int(lines[0].split(" ", 2)[1])
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            self._head = PlainResponse(status, headers)
            self._keep = headers.get("connection", "").lower() != "close" and not lines[
                0
            ].startswith("HTTP/1.0")
            self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
            length = headers.get("content-length")
            self._length = int(length) if length is not None and not self._chunked else None
            if status in (204, 304) or 100 <= status < 200:
                self._length = 0
            if self._length is not None and self._length < 0:
                raise ValueError("negative content-length")
            if self._length is not None and self._length > self._max_body:
                raise BodyTooLarge(self._max_body)
        if self._chunked:
            if self._dechunk():
                self._finish(bytes(self._body))
        elif self._length is not None:
            if len(self._buf) >= self._length:
                self._finish(bytes(self._buf[: self._length]))
        elif len(self._buf) > self._max_body:  # a body that ends with the connection
            raise BodyTooLarge(self._max_body)

    def _dechunk(self) -> bool:
        """Move the whole chunks at the front of the buffer into the body; True once the
        last chunk and the trailers' end have come."""
        buf = self._buf
        while True:
            end = buf.find(b"\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD:
                    raise ValueError("chunk size line too long")
                return False
            size = int(bytes(buf[:end]).split(b";")[0].strip() or b"0", 16)
            if size < 0:
                raise ValueError("negative chunk size")
            if size == 0:  # the last chunk, then trailers (if any) and an empty line
                if buf.find(b"\r\n\r\n", end) >= 0:
                    return True
                if len(buf) > MAX_HEAD:
                    raise ValueError("trailers too long")
                return False
            if len(self._body) + size > self._max_body:
                raise BodyTooLarge(self._max_body)
            start = end + 2
            if len(buf) < start + size + 2:
                return False
            self._body += buf[start : start + size]
            del buf[: start + size + 2]


class PlainPool:
    """Keep-alive connections to host:port; `post` sends one JSON body and awaits the
    answer. Bound to the event loop it is first used on."""

    def __init__(
        self,
        host: str,
        port: int,
        headers: dict[str, str],
        size: int,
        max_body: int = DEFAULT_MAX_BODY_MB * MIB,
    ) -> None:
        self.host, self.port = host, port
        self.max_body = max_body
        self._idle: list[_Connection] = []
        self._slots = asyncio.Semaphore(max(1, size))
        host_header = host if port == 80 else f"{host}:{port}"
        if ":" in host and not host.startswith("["):  # an IPv6 literal
            host_header = f"[{host}]" if port == 80 else f"[{host}]:{port}"
        fixed = {"Host": host_header, **headers, "Connection": "keep-alive"}
        self._headers = "".join(f"{k}: {v}\r\n" for k, v in fixed.items()).encode("latin-1")
        self.opened = 0  # connections made (tests and benchmarks read it)

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(
                lambda: _Connection(self.max_body), self.host, self.port
            )
        except OSError as exc:
            raise TransportError(exc.strerror or str(exc)) from None
        self.opened += 1
        return conn

    def _take_idle(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.reusable:
                return conn
            conn.close()
        return None

    async def post(self, target: str, body: bytes, timeout_s: float) -> PlainResponse:
        request = (
            f"POST {target} HTTP/1.1\r\n".encode("latin-1")
            + self._headers
            + b"Content-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        async with self._slots:
            deadline = asyncio.get_running_loop().time() + timeout_s
            try:
                return await self._exchange(request, deadline)
            except TimeoutError:
                raise TransportTimeout(f"no answer within {timeout_s:g}s") from None

    async def _exchange(self, request: bytes, deadline: float) -> PlainResponse:
        conn = self._take_idle()
        reused = conn is not None
        if conn is None:
            async with asyncio.timeout_at(deadline):
                conn = await self._connect()
        try:
            response = await _until(conn.send(request), deadline)
        except TransportError:
            conn.close()
            if not (reused and not conn.got_bytes):
                raise
            async with asyncio.timeout_at(deadline):
                conn = await self._connect()  # a kept connection the server had closed
            try:
                response = await _until(conn.send(request), deadline)
            except BaseException:
                conn.close()
                raise
        except BaseException:  # cancelled or timed out mid-answer: the connection is spent
            conn.close()
            raise
        if conn.reusable:
            self._idle.append(conn)
        else:
            conn.close()
        return response

    def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.close()


async def _until(answer: asyncio.Future[PlainResponse], deadline: float) -> PlainResponse:
    """The answer, or TimeoutError at `deadline` (loop time). One timer on the future
    itself: cheaper than `asyncio.timeout`, which cancels and uncancels the task."""
    handle = asyncio.get_running_loop().call_at(deadline, _expire, answer)
    try:
        return await answer
    finally:
        handle.cancel()


def _expire(answer: asyncio.Future[PlainResponse]) -> None:
    if not answer.done():
        answer.set_exception(TimeoutError())
