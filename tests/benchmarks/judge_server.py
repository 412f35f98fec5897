"""A loopback OpenAI-compatible server for benchmark tests: a rule-following judge and
a model under test, answering by what the prompt contains. Every request body is kept.

Judge rules: a pairwise prompt prefers the response holding "GOOD" ([[A>B]] / [[B>A]],
else [[A=B]]; a request holding "FIRST-BIASED" moves that verdict one step toward A, as a
position-biased judge would); a YES/NO prompt says YES when the response holds "RIGHT"; a letter
prompt answers the letter after "LETTER=" (else NONE). Anything else is the model under
test: it answers MODEL_REPLY.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_REPLY = "GOOD answer"
SCALE = ["[[B>>A]]", "[[B>A]]", "[[A=B]]", "[[A>B]]", "[[A>>B]]"]


def _block(tag: str, text: str) -> str:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    return match.group(1) if match else ""


def reply_for(messages: list[dict[str, Any]]) -> str:
    user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    if "<response_A>" in user:
        a, b = "GOOD" in _block("response_A", user), "GOOD" in _block("response_B", user)
        step = 2 + int(a) - int(b) + int("FIRST-BIASED" in _block("user_request", user))
        return SCALE[step]
    if "<criterion>" in user:
        return "YES" if "RIGHT" in _block("response", user) else "NO"
    if "<answer>" in user:
        match = re.search(r"LETTER=([A-Z])", _block("answer", user))
        return match.group(1) if match else "NONE"
    return MODEL_REPLY


class JudgeServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                text = reply_for(body.get("messages") or [])
                payload = json.dumps(
                    {
                        "id": "chatcmpl-bench",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "m"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> JudgeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
