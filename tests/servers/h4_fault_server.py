"""A loopback OpenAI-compatible server that misbehaves on cue, for retry tests.

`FaultServer().script(["429", "500", "ok"])` answers the next requests in that order
(then "ok" forever). Behaviours: ok, tool, badargs, 429, 500, 503, 401, slow:<s>,
garbage, drop. Every request (headers and JSON body) is kept in `requests`.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {
    "prompt_tokens": 100,
    "completion_tokens": 20,
    "total_tokens": 120,
    "prompt_tokens_details": {"cached_tokens": 40},
}


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": USAGE,
    }


def _tool_message(arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": arguments},
            }
        ],
    }


class FaultServer:
    def __init__(self) -> None:
        self._queue: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.requests.append(
                        {
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "body": json.loads(body or b"{}"),
                        }
                    )
                    action = server._queue.popleft() if server._queue else "ok"
                # a client that gave up (timeout) before the slow reply is fine
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    server._act(self, action)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, actions: list[str]) -> FaultServer:
        with self._lock:
            self._queue = deque(actions)
            self.requests.clear()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(body)

    def _act(self, handler: BaseHTTPRequestHandler, action: str) -> None:
        if action.startswith("slow:"):
            time.sleep(float(action.split(":", 1)[1]))
            action = "ok"
        if action == "ok":
            message = {"role": "assistant", "content": "hello from the test server"}
            self._send(handler, 200, json.dumps(_completion(message)).encode())
        elif action == "tool":
            message = _tool_message('{"path": "notes/a.md"}')
            self._send(handler, 200, json.dumps(_completion(message)).encode())
        elif action == "badargs":
            message = _tool_message('{"path": "notes/a.md"')  # truncated JSON
            self._send(handler, 200, json.dumps(_completion(message)).encode())
        elif action in ("429", "500", "503"):
            error = {"error": {"message": f"injected {action}", "type": "test"}}
            self._send(handler, int(action), json.dumps(error).encode(), {"retry-after": "0"})
        elif action == "401":
            # echo the credentials back, as careless servers do, to prove redaction
            auth = handler.headers.get("authorization", "")
            error = {"error": {"message": f"invalid key; got header Authorization: {auth}"}}
            self._send(handler, 401, json.dumps(error).encode())
        elif action == "garbage":
            self._send(handler, 200, b"{this is not json")
        elif action == "drop":
            handler.close_connection = True
            handler.connection.close()
        else:
            raise ValueError(f"unknown action {action}")
