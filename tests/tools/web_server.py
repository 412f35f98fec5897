"""A loopback HTTP server for the web tools' tests: real sockets, fixed pages."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = (
    b"<html><head><title>Ferry times</title><style>p{color:red}</style>"
    b"<script>var secret = 1;</script></head><body><h1>Ferries</h1>"
    b"<p>The first ferry leaves at 06:40.</p><ul><li>Pier 3</li><li>Pier 4</li></ul>"
    b"</body></html>"
)


class Pages(BaseHTTPRequestHandler):
    seen: list[tuple[str, str, dict[str, str], bytes]] = []

    def _answer(self, status: int, body: bytes, kind: str = "text/plain",
                extra: dict[str, str] | None = None) -> None:
        with suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
            self._send(status, body, kind, extra or {})

    def _send(self, status: int, body: bytes, kind: str, extra: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length) if length else b""
        Pages.seen.append((self.command, self.path, dict(self.headers), sent))
        if self.path == "/big":
            self._answer(200, b"a" * 50_000)
        elif self.path == "/slow":
            time.sleep(1.5)
            self._answer(200, b"late")
        elif self.path == "/page":
            self._answer(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/away":
            self._answer(302, b"", extra={"Location": "http://localhost:1/elsewhere"})
        elif self.path == "/echo":
            self._answer(201, b"got " + sent, "application/json")
        else:
            self._answer(200, b"hello", "text/plain")

    do_GET = do_POST = do_PUT = do_HEAD = _handle

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serving() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
