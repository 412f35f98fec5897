"""The reply constraint on the OpenAI-compatible path: `response_format` sent to a real
llama_cpp.server and the constrained reply parsed; a server that refuses it (HTTP 400)
makes the judge fall back once to the plain prompt."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from trialrun.judge import JudgeSettings, ask, parse_yes_no, yes_no_prompt
from trialrun.models import CompletionParams, ConstraintRejected, ReplyConstraint, create_model

YES_NO = ReplyConstraint("yes_no", {"enum": ["YES", "NO"]}, ("YES", "NO"))


class RefusingServer:
    """A loopback chat server that answers 400 to any `response_format`, else `YES`."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.bodies.append(body)
                if "response_format" in body:
                    status, out = 400, {"error": {"message": "response_format not supported"}}
                else:
                    message = {"role": "assistant", "content": "YES"}
                    choice = {"index": 0, "message": message, "finish_reason": "stop"}
                    status = 200
                    out = {"id": "x", "object": "chat.completion", "created": 0,
                           "model": "m", "choices": [choice]}  # fmt: skip
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def refusing_server():
    server = RefusingServer()
    yield server
    server.close()


def test_refused_response_format_raises_constraint_rejected_then_plain_works(
    refusing_server, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    model = create_model(f"openai-compat:m@{refusing_server.url}")
    params = CompletionParams(max_tokens=4, reply=YES_NO)
    with pytest.raises(ConstraintRejected, match="response_format"):
        asyncio.run(model.complete([{"role": "user", "content": "q"}], [], params))
    forms = [b["response_format"]["type"] for b in refusing_server.bodies]
    assert forms == ["json_schema", "json_object"]  # each form once, never retried
    schema = refusing_server.bodies[0]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"] == {"enum": ["YES", "NO"]}
    with pytest.raises(ConstraintRejected):  # remembered: no further request
        asyncio.run(model.complete([{"role": "user", "content": "q"}], [], params))
    assert len(refusing_server.bodies) == 2


def test_judge_falls_back_once_when_the_server_refuses_the_constraint(
    refusing_server, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    model = create_model(f"openai-compat:m@{refusing_server.url}")
    settings = JudgeSettings(cache=False, timeout_s=10)
    out = asyncio.run(ask(model, yes_no_prompt("q", "r", "c"), parse_yes_no, settings=settings))
    assert out.value is True and out.raw_replies == ["YES"]
    details = out.details()
    assert details["constrained"] is False
    assert "response_format rejected" in details["constraint_fallback"]
    assert "response_format" not in refusing_server.bodies[-1]


@pytest.mark.local_model
def test_llama_cpp_server_receives_the_schema_and_the_reply_parses(
    llama_server, monkeypatch, tmp_path
):
    import json

    from trialrun.models._http import LeanClient

    monkeypatch.chdir(tmp_path)
    sent: list[dict[str, Any]] = []
    original = LeanClient.post_json

    async def spy(self: Any, url: str, body: bytes, timeout_s: float) -> Any:
        sent.append(json.loads(body))  # what went over the wire
        return await original(self, url, body, timeout_s)

    monkeypatch.setattr(LeanClient, "post_json", spy)
    model = create_model(f"openai-compat:smollm2@{llama_server}")
    settings = JudgeSettings(cache=False, timeout_s=60, max_tokens=16)
    prompt = yes_no_prompt("What is 2+2?", "5", "The answer is correct.")
    out = asyncio.run(ask(model, prompt, parse_yes_no, settings=settings))
    assert out.error is None and isinstance(out.value, bool)
    assert out.details()["constrained"] is True and len(out.raw_replies) == 1
    formats = [k.get("response_format") for k in sent]
    assert formats and all(f is not None for f in formats)
    last = formats[-1]
    schema = last["json_schema"]["schema"] if last["type"] == "json_schema" else last["schema"]
    assert schema["properties"]["verdict"] == {"enum": ["YES", "NO"]}
