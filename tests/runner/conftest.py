"""Shared by the runner tests: a hanging server, an agent that kills its own process, an
agent whose first calls end in an infra error, and what a Ray cluster listens on.

A loopback OpenAI-compatible server that can hang: it accepts a request and never answers.

`HangServer().script(["hang", "hang", "answer"])` plays those behaviours for the next
requests, then `then` (default "answer") forever. Behaviours: `hang` (read the request,
never reply until the server closes), `answer` (a final text answer), `call:<tool>` (one
call of that tool, empty arguments); any of them may end in `@<seconds>` to reply after a
delay. Every request body is kept in `requests`.

`ray_listeners` lists what a Ray cluster's processes listen on (TCP LISTEN, bound UDP).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import pytest

ANSWER = "all done"


def _completion(message: dict[str, Any]) -> bytes:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    body = {
        "id": "chatcmpl-hang",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "hang-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }
    return json.dumps(body).encode()


class HangServer:
    def __init__(self) -> None:
        self._queue: deque[str] = deque()
        self.then = "answer"
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._closed = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.requests.append(json.loads(body or b"{}"))
                    action = server._queue.popleft() if server._queue else server.then
                # the client gives up on a hanging request: its socket is gone by then
                with contextlib.suppress(OSError):
                    server._act(self, action)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def model(self) -> str:
        return f"openai-compat:hang-model@{self.url}"

    def script(self, actions: list[str], then: str = "answer") -> HangServer:
        with self._lock:
            self._queue = deque(actions)
            self.then = then
            self.requests.clear()
        return self

    def close(self) -> None:
        self._closed.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _act(self, handler: BaseHTTPRequestHandler, action: str) -> None:
        action, _, delay = action.partition("@")
        if action == "hang":
            self._closed.wait()
            return
        if delay:
            time.sleep(float(delay))
        if action == "answer":
            message: dict[str, Any] = {"role": "assistant", "content": ANSWER}
        elif action.startswith("call:"):
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{len(self.requests)}",
                        "type": "function",
                        "function": {"name": action[5:], "arguments": "{}"},
                    }
                ],
            }
        else:
            raise ValueError(f"unknown action {action}")
        body = _completion(message)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


@pytest.fixture
def hang_server():
    server = HangServer()
    yield server
    server.close()


@pytest.fixture
def retry_env(monkeypatch, tmp_path):
    """No trialrun.toml in sight; 2 attempts with near-zero backoff; no API key variables."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRIALRUN_RETRY_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("TRIALRUN_RETRY_BASE_DELAY_S", "0.01")
    monkeypatch.setenv("TRIALRUN_RETRY_MAX_DELAY_S", "0.02")
    monkeypatch.delenv("TRIALRUN_RETRY_REQUEST_TIMEOUT_S", raising=False)
    for var in ("TRIALRUN_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


# fault injection for executors that run trials in other processes (Ray, worker
# processes): the agent kills its own process mid-trial; "once" is claimed atomically
# (O_EXCL), so two trials starting together cannot both crash; every attempt leaves a mark
CRASHING_AGENT = """\
import os
import time
from pathlib import Path

MARKS = Path({marks!r})
CRASHED = Path({marks!r} + ".crashed")


def agent(task, workspace, tools, model):
    MARKS.mkdir(exist_ok=True)
    (MARKS / f"attempt-{{os.getpid()}}-{{time.monotonic_ns()}}").write_text("")
    try:
        os.close(os.open(CRASHED, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        first = True
    except FileExistsError:
        first = False
    if {always} or first:
        os._exit(1)
    # the fixture reached the worker: it built the workspace from it
    return (Path(workspace) / "note.txt").read_text()
"""


@pytest.fixture
def crashing_agent(tmp_path: Path) -> Callable[[bool], tuple[str, Path]]:
    """`crashing_agent(always)` -> (the `--agent` spec, the folder of attempt marks): the
    agent's process dies on its first call (every call when `always`), else it answers
    with the workspace's note.txt."""

    def make(always: bool) -> tuple[str, Path]:
        marks = tmp_path / "marks"
        agent = tmp_path / "crash.py"
        agent.write_text(CRASHING_AGENT.format(marks=str(marks), always=always))
        return f"{agent}:agent", marks

    return make


FLAKY_AGENT = """\
import os
import uuid
from pathlib import Path

from trialrun.errors import InfraError

MARKS = Path({marks!r})
FAILURES = {failures}  # calls that end in an infra error: the first ones, over every trial


def agent(task, workspace, tools, model):
    MARKS.mkdir(exist_ok=True)
    for i in range(FAILURES):
        try:  # each failure is taken once, by one call, whichever process makes it
            os.close(os.open(MARKS / f"failure-{{i}}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        raise InfraError(f"provider unreachable (injected failure {{i}})")
    (MARKS / f"answer-{{uuid.uuid4().hex}}").touch()  # one each, even at the same instant
    return (Path(workspace) / "note.txt").read_text()
"""


@pytest.fixture
def flaky_agent(tmp_path: Path) -> Callable[[int], tuple[str, Path]]:
    """`flaky_agent(failures)` -> (the `--agent` spec, the folder of its marks): its first
    `failures` calls, over all trials and processes, raise `InfraError` (fault injection:
    a provider down for a moment); every other call answers with the workspace's
    note.txt. The marks: one `failure-i` per failed call, one `answer-…` per answer."""

    def make(failures: int) -> tuple[str, Path]:
        marks = tmp_path / "flaky-marks"
        agent = tmp_path / "flaky.py"
        agent.write_text(FLAKY_AGENT.format(marks=str(marks), failures=failures))
        return f"{agent}:agent", marks

    return make


@dataclass(frozen=True)
class Listener:
    """A TCP socket in LISTEN (or a bound UDP socket) of one process."""

    pid: int
    name: str
    ip: str
    port: int

    @property
    def loopback(self) -> bool:
        address = ipaddress.ip_address(self.ip)
        mapped = getattr(address, "ipv4_mapped", None)  # gRPC's [::ffff:127.0.0.1]
        return (mapped or address).is_loopback


def listeners_of(pids: list[int]) -> list[Listener]:
    """Every listening TCP socket and bound UDP socket of `pids` and the processes below
    them (Ray's daemons, agents and workers all run below the process that started them)."""
    procs: dict[int, psutil.Process] = {}
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(pid)
            for proc in (root, *root.children(recursive=True)):
                procs[proc.pid] = proc
    found = []
    for proc in procs.values():
        with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):
            name = proc.name()
            for conn in proc.net_connections(kind="inet"):
                udp = conn.type == socket.SOCK_DGRAM and not conn.raddr
                if (conn.status == psutil.CONN_LISTEN or udp) and conn.laddr:
                    found.append(Listener(proc.pid, name, conn.laddr.ip, conn.laddr.port))
    return found


@pytest.fixture
def ray_listeners():
    """`listeners_of`: the sockets a Ray cluster's processes listen on."""
    return listeners_of
