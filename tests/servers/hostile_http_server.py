"""A loopback HTTP/1.1 server on raw sockets that answers what a test tells it to.

`HostileServer().reply(body)` answers every request with `body` (status 200,
Content-Length, keep-alive); `.endless(framing)` answers with a body that never ends:
`length` declares a terabyte, `chunked` sends chunks forever, `close` streams until the
client hangs up. Raw sockets, so the framing is exactly what the test asked for. Requests
(their first line and body) are kept in `requests`. It also serves as a plain-HTTP
forward proxy: a request line with an absolute URL is answered the same way.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Literal

Framing = Literal["length", "chunked", "close"]
CHUNK = b"x" * 65536
MAX_STREAM = 8 << 30  # a safety stop for the endless body (a client that never hangs up)


class HostileServer:
    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._body = b"{}"
        self._framing: Framing | None = None
        self.requests: list[tuple[str, bytes]] = []
        self.streamed = 0  # bytes of endless body sent so far
        self._closed = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._listener.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reply(self, body: bytes) -> HostileServer:
        self._body, self._framing = body, None
        return self

    def endless(self, framing: Framing) -> HostileServer:
        self._framing = framing
        return self

    def close(self) -> None:
        """Stop accepting: the accept thread is woken (shutdown) and ended before the
        socket is closed, so it can never accept on a later socket given the same fd."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._thread.join(10)
        with contextlib.suppress(OSError):
            self._listener.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            buf = b""
            while True:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                while len(buf) < length:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                body, buf = buf[:length], buf[length:]
                self.requests.append((lines[0], body))
                if self._framing is not None:
                    self._stream(conn, self._framing)
                    return
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(self._body)}\r\n\r\n".encode()
                    + self._body
                )

    def _stream(self, conn: socket.socket, framing: Framing) -> None:
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if framing == "length":
            head += f"Content-Length: {1 << 40}\r\n"
        elif framing == "chunked":
            head += "Transfer-Encoding: chunked\r\n"
        else:
            head += "Connection: close\r\n"
        conn.sendall(head.encode() + b"\r\n")
        piece = b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK) if framing == "chunked" else CHUNK
        while self.streamed < MAX_STREAM and not self._closed:
            conn.sendall(piece)  # raises once the client has hung up
            self.streamed += len(CHUNK)
