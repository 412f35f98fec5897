"""A loopback stand-in for Gemini's OpenAI-compatible endpoint (`…/v1beta/openai/`) with
Gemini 3's thought signatures, for the `openai` / `openai-compat` providers.

`GeminiOpenAIServer(steps, answer)`: `POST {url}/chat/completions` answers the current
turn (the messages after the last user message) step by step: while the turn holds
fewer assistant tool-call messages than `steps`, the next step's calls (a list of
`(name, arguments)`; several are parallel calls), else the text `answer`. As Gemini
does, the first call of each step carries `extra_content: {"google": {"thought_signature":
SIG}}` (the others none) and so does a text answer, on its message.

A request is answered 400 in Gemini's own shape (a list of one error) when a tool call
of the current turn comes back without the exact `extra_content` it was given, or with
one it was not given. `signed=False` is a server that never sends `extra_content` and
answers 400 to any request that holds one. Every request (headers, raw bytes, parsed
body) is kept in `requests`; answered 400s are counted in `rejected`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = list[tuple[str, dict[str, Any]]]
USAGE = {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}


def signature(name: str, value: Any) -> str:
    """The opaque signature the server gives a call (or a text): base64 with `+`, `/`
    and `=`, so any re-encoding or trimming on the way back shows."""
    digest = hashlib.sha256(f"{name}:{json.dumps(value, sort_keys=True)}".encode()).digest()
    return base64.b64encode(digest + b"\xfb\xff").decode()


def signed(name: str, value: Any) -> dict[str, Any]:
    """The `extra_content` Gemini's OpenAI-compatible API puts on a call or message."""
    return {"google": {"thought_signature": signature(name, value)}}


def _arguments(call: dict[str, Any]) -> Any:
    try:
        return json.loads((call.get("function") or {}).get("arguments") or "{}")
    except json.JSONDecodeError:
        return None


def unsigned_call(messages: list[dict[str, Any]]) -> str | None:
    """Gemini 3's check on the current turn: each assistant message's first tool call
    holds exactly the `extra_content` it was given, the others none. The API's message
    for the first offence, or None."""
    asked = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    start = asked[-1] if asked else 0
    for position, message in enumerate(messages[start:], start):
        if message.get("role") != "assistant":
            continue
        for index, call in enumerate(message.get("tool_calls") or []):
            name = (call.get("function") or {}).get("name", "")
            given = signed(name, _arguments(call)) if index == 0 else None
            extra = call.get("extra_content")
            if given is not None and extra is None:
                return (
                    "Function call is missing a thought_signature in functionCall parts. This "
                    "is required for tools to work correctly, and missing thought_signature "
                    "may lead to degraded model performance. Additional data, function call "
                    f"`default_api:{name}` , position {position + 1}. Please refer to "
                    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
                )
            if extra != given:
                return "Corrupted thought signature."
    return None


class GeminiOpenAIServer:
    def __init__(self, steps: list[Step], answer: str, *, signed: bool = True) -> None:
        self.steps = steps
        self.answer = answer
        self.signed = signed
        self.requests: list[dict[str, Any]] = []
        self.rejected = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw)
                with server._lock:
                    server.requests.append({
                        "path": self.path, "raw": raw, "body": body,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                    })  # fmt: skip
                status, answer = server.respond(self.path, raw, body)
                if status != 200:
                    with server._lock:
                        server.rejected += 1
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1beta/openai"

    def respond(self, path: str, raw: bytes, body: dict[str, Any]) -> tuple[int, Any]:
        if path != "/v1beta/openai/chat/completions":
            return 404, [{"error": {"code": 404, "message": f"no route {path}"}}]
        messages = body.get("messages") or []
        if self.signed:
            problem = unsigned_call(messages)
        else:
            problem = "Unknown name \"extra_content\"" if b"extra_content" in raw else None
        if problem is not None:
            return 400, [{"error": {"code": 400, "message": problem,
                                    "status": "INVALID_ARGUMENT"}}]  # fmt: skip
        asked = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        turn = messages[asked[-1] if asked else 0 :]
        done = sum(1 for m in turn if m.get("role") == "assistant" and m.get("tool_calls"))
        if done < len(self.steps):
            calls = []
            for index, (name, arguments) in enumerate(self.steps[done]):
                call: dict[str, Any] = {
                    "id": f"function-call-{done}-{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                if self.signed and index == 0:
                    call["extra_content"] = signed(name, arguments)
                calls.append(call)
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": self.answer}
            if self.signed:
                message["extra_content"] = signed("text", self.answer)
            finish = "stop"
        return 200, {
            "id": "chatcmpl-gemini", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "gemini-3-test"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": USAGE,
        }  # fmt: skip

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> GeminiOpenAIServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
