"""HTTP/2 on the lean request path: a real HTTP/2 server over TLS on 127.0.0.1.

hypercorn serves a tiny OpenAI-compatible ASGI app (ALPN offers h2 and http/1.1) with a
certificate for 127.0.0.1 from a throwaway trustme CA; `SSL_CERT_FILE` points httpx at
that CA. The app records, per request, the HTTP version, the peer (one client port per
TCP connection) and how many requests that connection had in flight. A real trial runs
through `trialrun.run` with the built-in tool loop; without `h2` importable the same
trial goes over HTTP/1.1; an error status over HTTP/2 reads as it does over HTTP/1.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("h2", reason="HTTP/2 needs h2: pip install 'trialrun[http2]' (dev has it)")
pytest.importorskip("hypercorn", reason="the HTTP/2 test server is hypercorn (in the dev extra)")
trustme = pytest.importorskip("trustme", reason="the test CA is made by trustme (in the dev extra)")

from hypercorn.asyncio import serve  # noqa: E402
from hypercorn.config import Config  # noqa: E402

from conftest import FAST  # noqa: E402
from trialrun import run as run_eval  # noqa: E402
from trialrun.errors import InfraError  # noqa: E402
from trialrun.models import CompletionParams, create_model  # noqa: E402
from trialrun.tasks import Task  # noqa: E402

pytestmark = pytest.mark.timeout(60)

WRITTEN = "sent over the wire"
ANSWER = "all done"


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-h2",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class ChatApp:
    """/v1/chat/completions: a write_file call, then "all done" once the tool answered;
    a last user message "fail N" is answered with status N. With `hold_first`, the first
    request is held until a second one is in flight (at most 5 s): trials overlap."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.peak: dict[tuple, int] = {}  # connection (client address) → most in flight
        self._in_flight: dict[tuple, int] = {}
        self._overlap: asyncio.Event | None = None
        self.hold_first = False

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        conn = tuple(scope["client"])
        self._in_flight[conn] = self._in_flight.get(conn, 0) + 1
        self.peak[conn] = max(self.peak.get(conn, 0), self._in_flight[conn])
        request = json.loads(body)
        self.requests.append(
            {
                "http_version": scope["http_version"],
                "client": conn,
                "path": scope["path"],
                "body": request,
            }
        )
        if self._overlap is None and self.hold_first:  # the first request
            self._overlap = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._overlap.wait(), 5)
        elif self._overlap is not None:
            self._overlap.set()
        try:
            status, answer = self._answer(request)
            payload = json.dumps(answer).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(payload)).encode()),
                        (b"retry-after", b"0"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": payload})
        finally:
            self._in_flight[conn] -= 1

    @staticmethod
    def _answer(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        last = request["messages"][-1]
        if last["role"] == "user" and str(last["content"]).startswith("fail "):
            status = int(last["content"].split()[1])
            return status, {"error": {"message": f"injected {status}", "type": "test"}}
        if last["role"] == "tool":
            return 200, _completion({"role": "assistant", "content": ANSWER})
        arguments = json.dumps({"path": "answer.txt", "content": WRITTEN})
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "write_file", "arguments": arguments},
        }
        return 200, _completion({"role": "assistant", "content": None, "tool_calls": [call]})


class TlsServer:
    """hypercorn on 127.0.0.1 (ephemeral port, TLS) in a thread of its own."""

    def __init__(self, tmp_path: Path) -> None:
        ca = trustme.CA()
        self.ca_file = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_file))
        pem = tmp_path / "server.pem"
        ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(pem))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = Config()
        config.bind = [f"fd://{sock.detach()}"]  # hypercorn owns the bound socket
        config.certfile = config.keyfile = str(pem)
        config.errorlog = config.accesslog = None
        config.graceful_timeout = 1.0
        self.app = ChatApp()
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        self._up = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, args=(config,), daemon=True)
        self._thread.start()
        self._wait_until_listening()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/v1"

    def _serve(self, config: Config) -> None:
        try:
            self._loop.run_until_complete(serve(self.app, config, shutdown_trigger=self._stop.wait))
        except BaseException as exc:  # surfaced by the test, not lost in the thread
            self._error = exc
        finally:
            self._loop.close()

    def _wait_until_listening(self) -> None:
        for _ in range(200):
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"hypercorn did not start: {self._error!r}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                threading.Event().wait(0.025)
        raise RuntimeError("hypercorn is not listening after 5 s")

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)


@pytest.fixture
def tls_server(tmp_path, monkeypatch, fast_retries):
    server = TlsServer(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))  # httpx trusts the test CA
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for var in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    yield server
    server.close()


def run_trials(server: TlsServer, tmp_path: Path, task: Task):
    """Three trials, all in flight at once, of a two-turn task through the tool loop."""
    server.app.hold_first = True
    outcome = run_eval(
        [task],
        [f"openai-compat:test-model@{server.url}"],
        k=3,
        concurrency=3,
        out=tmp_path / "out",
        handle_sigint=False,
    )
    assert len(outcome.results) == 3
    for line in outcome.results:
        assert line.error is None, line.error
        assert line.passed is True and line.solve is True
        assert line.final_text == ANSWER and line.turns == 2
        assert [(c["name"], c["ok"]) for c in line.tool_calls] == [("write_file", True)]
    requests = server.app.requests
    assert len(requests) == 6 and {r["path"] for r in requests} == {"/v1/chat/completions"}
    tool_turns = [
        r["body"]["messages"] for r in requests if r["body"]["messages"][-1]["role"] == "tool"
    ]
    assert len(tool_turns) == 3  # each trial's write_file result went back to the model
    for messages in tool_turns:
        assert messages[-1]["tool_call_id"] == "call_1"
        assert messages[-2]["tool_calls"][0]["function"]["name"] == "write_file"
    return outcome


def test_a_trial_goes_over_http2_and_one_connection_carries_every_request(
    tls_server, tmp_path, write_file_task
):
    run_trials(tls_server, tmp_path, write_file_task)
    app = tls_server.app
    assert [r["http_version"] for r in app.requests] == ["2"] * 6
    (connection,) = app.peak  # one TCP connection carried all six requests …
    assert app.peak[connection] >= 2  # … several of them at once (multiplexed)


def test_without_h2_the_same_trial_goes_over_http11(
    tls_server, tmp_path, monkeypatch, write_file_task
):
    monkeypatch.setitem(sys.modules, "h2", None)  # fault injection: `import h2` fails
    run_trials(tls_server, tmp_path, write_file_task)
    app = tls_server.app
    assert [r["http_version"] for r in app.requests] == ["1.1"] * 6
    assert 2 <= len(app.peak) <= 3  # overlapping trials: a connection each, up to -j 3
    assert max(app.peak.values()) == 1  # HTTP/1.1: one request at a time per connection


@pytest.mark.parametrize("status", [429, 500])
def test_an_error_status_over_http2_reads_as_over_http11(
    tls_server, fault_server, fast_retries, status
):
    async def error_of(url: str) -> str:
        model = create_model(f"openai-compat:test-model@{url}", settings=FAST)
        try:
            with pytest.raises(InfraError) as info:
                await model.complete(
                    [{"role": "user", "content": f"fail {status}"}], [], CompletionParams()
                )
        finally:
            await model.aclose()
        return str(info.value).replace(url, "URL")

    over_h2 = asyncio.run(error_of(tls_server.url))
    fault_server.script([str(status)] * 3)
    over_h11 = asyncio.run(error_of(fault_server.url))  # the plain HTTP/1.1 path
    assert over_h2 == over_h11
    assert f"HTTP {status}: Error code: {status} - injected {status}" in over_h2
    assert "after 3 attempt(s)" in over_h2 and "\n" not in over_h2
    # retried as configured (3 attempts), every attempt over HTTP/2
    assert [r["http_version"] for r in tls_server.app.requests] == ["2"] * 3
    assert len(fault_server.requests) == 3
