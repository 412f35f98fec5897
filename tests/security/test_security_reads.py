"""Issue 32, item 3: unbounded reads. A provider answering with an endless body, a JSON
bomb within the size cap, an agent printing without end, an agent sending the recording
proxy an oversized or endless request: each is cut off at a cap (`[limits]` in
trialrun.toml) with memory bounded, and the cap is named where it was hit.

The clients run in a child process under a 1 GiB address-space limit (and a 64 MiB
file-size limit for the agent), so a read that is not bounded fails the test by running
out of memory (or disk) instead of exhausting the machine. The servers are real
loopback servers (`tests/servers/hostile_http_server.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trialrun
from trialrun.agents import AgentLimits, AgentSettings
from trialrun.agents.command import CommandAgent
from trialrun.config import ProjectConfig, load_config
from trialrun.models import ReadLimits
from trialrun.models._plain import BodyTooLarge, PlainPool
from trialrun.sandbox import run_contained
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext

SERVERS = Path(__file__).resolve().parents[1] / "servers"
if str(SERVERS) not in sys.path:
    sys.path.insert(0, str(SERVERS))

from hostile_http_server import HostileServer  # noqa: E402

pytestmark = pytest.mark.timeout(180)

SRC = str(Path(trialrun.__file__).resolve().parents[1])
ONE_GIB = 1 << 30

# One model call in a child under RLIMIT_AS (and RLIMIT_FSIZE): prints the answer's
# first characters, or the infra error, as one JSON line.
CALL_CHILD = r"""
import asyncio, json, resource, sys
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from trialrun.config import load_config
from trialrun.errors import InfraError
from trialrun.models import CompletionParams, ProviderSettings, create_model

async def main(spec):  # the entry point here: reads its folder's trialrun.toml, passes it on
    model = create_model(spec, settings=ProviderSettings.from_config(load_config()))
    try:
        params = CompletionParams(timeout_s=60)
        done = await model.complete([{"role": "user", "content": "hi"}], [], params)
        return {"text": (done.text or "")[:100]}
    except InfraError as exc:
        return {"infra": str(exc)}
    finally:
        await model.aclose()

print(json.dumps(asyncio.run(main(sys.argv[1]))))
"""


@pytest.fixture
def server():
    srv = HostileServer()
    yield srv
    srv.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder whose trialrun.toml caps bodies at 1 MiB and never retries."""
    (tmp_path / "trialrun.toml").write_text(
        "[limits]\nmax_body_mb = 1\n\n[retries]\nmax_attempts = 1\n", encoding="utf-8"
    )
    return tmp_path


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.update(GEMINI_API_KEY="k", ANTHROPIC_API_KEY="k", **extra)
    env.pop("TRIALRUN_RETRY_MAX_ATTEMPTS", None)
    return env


def call_in_child(spec: str, cwd: Path, **env: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", CALL_CHILD, spec, str(ONE_GIB)],
        cwd=cwd,
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=150,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, (done.returncode, done.stderr[-2000:])
    return json.loads(lines[-1])


def spec_for(provider: str, base: str) -> str:
    return {
        "openai-compat": f"openai-compat:m@{base}/v1",
        "gemini": f"gemini:m@{base}",
        "anthropic": f"anthropic:m@{base}",
    }[provider]


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("provider", ["openai-compat", "gemini", "anthropic"])
def test_an_endless_answer_is_cut_at_the_cap_and_named_in_the_infra_error(
    server, project, provider, framing
):
    server.endless(framing)
    outcome = call_in_child(spec_for(provider, server.url), project)
    assert "infra" in outcome, outcome
    assert "response body over 1 MiB (limit [limits] max_body_mb" in outcome["infra"]
    assert server.streamed < 64 << 20  # the client hung up near the cap, not at the rlimit


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
def test_the_httpx_path_through_a_proxy_is_capped_the_same(server, project, framing):
    """A proxy setting sends requests through httpx (not the plain pool): same cap."""
    server.endless(framing)
    outcome = call_in_child(
        "openai-compat:m@http://upstream.invalid/v1", project, HTTP_PROXY=server.url
    )
    assert "response body over 1 MiB (limit [limits] max_body_mb" in outcome.get("infra", ""), (
        outcome
    )


def test_the_default_cap_is_32_mib_and_holds_under_a_1_gib_address_space(server, tmp_path):
    (tmp_path / "trialrun.toml").write_text("[retries]\nmax_attempts = 1\n", encoding="utf-8")
    server.endless("chunked")
    outcome = call_in_child(spec_for("openai-compat", server.url), tmp_path)
    assert "response body over 32 MiB (limit [limits] max_body_mb" in outcome.get("infra", ""), (
        outcome
    )


def test_a_json_bomb_within_the_cap_is_refused_before_it_is_built(server, tmp_path):
    """30 MiB of `{}` would take ~700 MB as Python objects: refused by count, unparsed."""
    (tmp_path / "trialrun.toml").write_text("[retries]\nmax_attempts = 1\n", encoding="utf-8")
    pad = b"[" + b"{}," * (10 << 20) + b"{}]"
    server.reply(b'{"choices":[{"message":{"content":"hi"}}],"pad":' + pad + b"}")
    outcome = call_in_child(spec_for("openai-compat", server.url), tmp_path)
    assert "JSON objects and arrays" in outcome.get("infra", ""), outcome


def test_a_small_answer_still_reads_whole_under_the_cap(server, project):
    text = "é" * 1000
    body = {"choices": [{"message": {"role": "assistant", "content": text}}]}
    server.reply(json.dumps(body).encode())
    outcome = call_in_child(spec_for("openai-compat", server.url), project)
    assert outcome == {"text": text[:100]}


def framed(body: bytes, framing: str, sizes: list[int]) -> bytes:
    """`body` as an HTTP/1.1 answer: Content-Length, chunks of `sizes` (cycled), or until
    the connection closes."""
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    if framing == "length":
        return f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
    if framing == "close":
        return f"{head}Connection: close\r\n\r\n".encode() + body
    out, pos, i = bytearray(f"{head}Transfer-Encoding: chunked\r\n\r\n".encode()), 0, 0
    while pos < len(body):
        piece = body[pos : pos + sizes[i % len(sizes)]]
        out += b"%x\r\n%s\r\n" % (len(piece), piece)
        pos, i = pos + len(piece), i + 1
    return bytes(out + b"0\r\n\r\n")


@settings(max_examples=80, deadline=None)
@given(
    body=st.binary(max_size=4000),
    framing=st.sampled_from(["length", "chunked", "close"]),
    sizes=st.lists(st.integers(1, 700), min_size=1, max_size=8),
    cuts=st.lists(st.integers(1, 900), min_size=1, max_size=8),
    cap=st.integers(1, 5000),
)
def test_the_plain_pool_reads_any_framing_whole_up_to_the_cap(body, framing, sizes, cuts, cap):
    """Sent in pieces of any size over a real socket: the body exactly when it is within
    the cap, BodyTooLarge when it is over it."""
    answer = framed(body, framing, sizes)

    async def main() -> bytes | str:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            await reader.readexactly(2)
            pos, i = 0, 0
            with contextlib.suppress(ConnectionError):
                while pos < len(answer):
                    writer.write(answer[pos : pos + cuts[i % len(cuts)]])
                    await writer.drain()
                    await asyncio.sleep(0)
                    pos, i = pos + cuts[i % len(cuts)], i + 1
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        pool = PlainPool("127.0.0.1", server.sockets[0].getsockname()[1], {}, 1, cap)
        try:
            return (await pool.post("/", b"{}", 20)).content
        except BodyTooLarge:
            return "too large"
        finally:
            pool.close()
            server.close()

    got = asyncio.run(main())
    assert got == (body if len(body) <= cap else "too large")


AGENT_TASK = """\
task_id: loud-agent
suite: golden
description: An agent that prints far more than anyone reads.
inputs: {prompt: Say DONE at the end.}
environment: {budgets: {timeout_s: 120}}
graders:
  - {type: contains, value: DONE}
tracked_metrics: [pass^k]
"""


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_body_mb", "0"), ("max_body_mb", "-1"), ("max_body_mb", '"big"'),
     ("max_body_mb", "true"), ("max_body_mb", "inf"), ("max_agent_output_mb", "nan"),
     ("max_agent_output_mb", "5000")],
)  # fmt: skip
def test_a_bad_limits_setting_is_one_line_naming_the_file_and_key(tmp_path, key, value):
    (tmp_path / "trialrun.toml").write_text(f"[limits]\n{key} = {value}\n", encoding="utf-8")
    (tmp_path / "task.yaml").write_text(AGENT_TASK, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(tmp_path / "task.yaml"),
         "--model", "openai-compat:m@http://127.0.0.1:9/v1", "--out", str(tmp_path / "out")],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "trialrun.toml: [limits]" in lines[0] and key in lines[0], lines


def test_a_bad_agent_output_limit_stops_an_agent_cmd_run_before_any_trial(tmp_path):
    (tmp_path / "trialrun.toml").write_text("[limits]\nmax_agent_output_mb = 0\n", "utf-8")
    (tmp_path / "task.yaml").write_text(AGENT_TASK, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", "task.yaml", "--agent-cmd", "echo DONE",
         "--out", "out"],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "[limits] max_agent_output_mb = 0" in done.stderr
    assert not list((tmp_path / "out").glob("*/results.jsonl"))


# --- the agent's own output ---------------------------------------------------------


# The run in a child under RLIMIT_AS = 1 GiB and RLIMIT_FSIZE = 64 MiB: an agent output
# kept whole (in memory, or in a temporary file) can't fit.
RUN_CHILD = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
import trialrun
outcome = trialrun.run([sys.argv[1]], agent_cmd=sys.argv[2], out=sys.argv[3], k=1,
                       handle_sigint=False, fsync=False)
line = outcome.results[0]
print(json.dumps({"passed": line.passed, "error": line.error,
                  "final_text": line.final_text[:300] + " ... " + line.final_text[-300:],
                  "final_len": len(line.final_text),
                  "cut_notes": line.final_text.count("bytes of output left out"),
                  "notes": line.extra.get("agent_notes")}))
"""


def test_an_agent_printing_200_mib_keeps_head_and_tail_and_the_trial_goes_on(tmp_path):
    (tmp_path / "trialrun.toml").write_text("[limits]\nmax_agent_output_mb = 1\n", "utf-8")
    (tmp_path / "task.yaml").write_text(AGENT_TASK, encoding="utf-8")
    loud = "echo START; head -c 209715200 /dev/zero | tr '\\0' x; echo; echo DONE"
    done = subprocess.run(
        [sys.executable, "-c", RUN_CHILD, "task.yaml", loud, "out"],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line["error"] is None and line["passed"] is True, line
    assert line["final_text"].startswith("START\nxxx")
    assert line["final_text"].endswith("xxx\nDONE")
    assert line["cut_notes"] == 1  # where the middle was left out
    assert line["final_len"] <= (1 << 20) + 200  # the first and last 512 KiB, and the note
    notes = line["notes"]
    assert notes and "stdout" in notes[0] and "[limits] max_agent_output_mb" in notes[0], notes


def test_an_agent_that_prints_without_end_is_drained_until_its_timeout(tmp_path):
    """`yes` never stops: the trial times out (the agent's failure), the harness keeps
    only the head and tail meanwhile, and the output is in the transcript cut."""
    task = AGENT_TASK.replace("timeout_s: 120", "timeout_s: 3")
    (tmp_path / "trialrun.toml").write_text("[limits]\nmax_agent_output_mb = 1\n", "utf-8")
    (tmp_path / "task.yaml").write_text(task, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", RUN_CHILD, "task.yaml", "yes", "out"],
        cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=150,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line["passed"] is False and line["error"]["kind"] == "timeout", line
    assert line["final_len"] <= (1 << 20) + 200
    assert line["notes"], line


def test_a_quiet_agent_keeps_its_whole_output_and_gets_no_note(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = CommandAgent("printf 'line one\\nDONE'")
    task = Task.model_validate(
        {"task_id": "t", "suite": "golden", "description": "d", "inputs": {"prompt": "p"},
         "graders": [{"type": "contains", "value": "DONE"}], "tracked_metrics": ["pass^k"]}
    )  # fmt: skip
    limits = AgentLimits(max_turns=1, timeout_s=30)
    box = Toolbox([], ToolContext(tmp_path, "t", {"trial": 0}))
    result = asyncio.run(agent.run(task, tmp_path, box, None, limits))
    assert result.final_text == "line one\nDONE"
    assert result.notes == []


PRINT = (
    "import sys; n = int(sys.argv[1]); "
    "sys.stdout.buffer.write((bytes(range(251)) * (n // 251 + 1))[:n])"
)


@settings(max_examples=40, deadline=None)
@given(
    size=st.integers(0, 3 << 20),
    head=st.integers(0, 300_000),
    tail=st.integers(0, 300_000),
)
def test_the_kept_output_is_exactly_the_head_and_tail_of_what_was_printed(size, head, tail):
    """Whatever the sizes, the pipe reader keeps the first `head` and last `tail` bytes
    exactly and counts the rest."""
    with tempfile.TemporaryDirectory() as cwd:
        out = asyncio.run(
            run_contained([sys.executable, "-c", PRINT, str(size)], cwd, 60, jail=False,
                          head_bytes=head, tail_bytes=tail)
        )  # fmt: skip
    data = (bytes(range(251)) * (size // 251 + 1))[:size]
    kept_head, rest = data[:head], data[head:]
    kept_tail = rest[max(0, len(rest) - tail) :]
    dropped = len(rest) - len(kept_tail)
    assert out.exit_code == 0 and out.stdout_dropped == dropped
    if dropped and kept_head:
        note = f"\n[… {dropped} bytes of output left out …]\n".encode()
        assert out.stdout == kept_head + note + kept_tail
    else:
        assert out.stdout == kept_head + kept_tail


# --- the recording proxy reading an agent's requests ---------------------------------


def proxy_exchange(request: bytes, limit_mb: int, tmp_path: Path, monkeypatch) -> bytes:
    """Send `request` raw to a RecordingProxy (no model), return what it answered."""
    from trialrun.agents._proxy import RecordingProxy

    project = ProjectConfig(tmp_path / "trialrun.toml", {"limits": {"max_body_mb": limit_mb}})
    max_body = ReadLimits.load(project).max_body_bytes

    async def main() -> bytes:
        async with RecordingProxy(None, max_body=max_body) as proxy:

            def talk() -> bytes:
                with socket.create_connection(("127.0.0.1", proxy.port), timeout=20) as sock:
                    with contextlib.suppress(OSError):  # it may answer before all was sent
                        sock.sendall(request)
                    answer = b""
                    while True:
                        try:
                            data = sock.recv(65536)
                        except OSError:
                            break
                        if not data:
                            break
                        answer += data
                        if b"\r\n\r\n" in answer:
                            head, _, rest = answer.partition(b"\r\n\r\n")
                            for line in head.split(b"\r\n"):
                                name, _, value = line.partition(b":")
                                if name.lower() == b"content-length" and len(rest) >= int(value):
                                    return answer
                    return answer

            return await asyncio.to_thread(talk)

    return asyncio.run(main())


def test_the_proxy_refuses_a_request_body_over_the_cap_unread(tmp_path, monkeypatch):
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        + f"Content-Length: {2 << 20}\r\n\r\n".encode()
    )
    answer = proxy_exchange(head + b"{" * 1000, 1, tmp_path, monkeypatch)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"request body over 1 MiB (limit [limits] max_body_mb" in answer


def test_the_proxy_stops_reading_endless_headers(tmp_path, monkeypatch):
    request = b"POST /v1/chat/completions HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 1000 + b"\r\n"
    request *= 300  # 300 KB of headers, never ended
    answer = proxy_exchange(request, 1, tmp_path, monkeypatch)
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]


def test_the_proxy_reads_a_chunked_request_only_up_to_the_cap(tmp_path, monkeypatch):
    # chunked bodies are read (agents send them), but never past [limits] max_body_mb:
    # an endless chunk stream is refused with 413 in the API's own error shape
    small = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n0\r\n\r\n"
    )
    answer = proxy_exchange(small, 1, tmp_path, monkeypatch)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]  # read whole: "hello" is not JSON
    chunk = b"x" * 65536
    big = (
        b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 20
    )
    answer = proxy_exchange(big, 1, tmp_path, monkeypatch)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"max_body_mb" in answer and b'"type": "error"' in answer  # Anthropic's shape


def test_the_proxy_answers_a_bad_content_length_with_400(tmp_path, monkeypatch):
    request = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n"
    answer = proxy_exchange(request, 1, tmp_path, monkeypatch)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]


def test_the_proxy_refuses_a_json_bomb_request(tmp_path, monkeypatch):
    body = b'{"messages":[' + b"{}," * 1_100_000 + b"{}]}"
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    answer = proxy_exchange(head + body, 8, tmp_path, monkeypatch)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"JSON objects and arrays" in answer


def test_an_agent_whose_request_was_refused_sees_why(tmp_path, monkeypatch):
    """The agent gets the 413 as an OpenAI-style error it can print."""
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, os, urllib.request, urllib.error\n"
        "message = {'role': 'user', 'content': 'x' * (2 << 20)}\n"
        "body = json.dumps({'model': 'm', 'messages': [message]})\n"
        "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions',"
        " data=body.encode(), headers={'Content-Type': 'application/json'})\n"
        "try:\n    urllib.request.urlopen(req, timeout=20)\n"
        "except urllib.error.HTTPError as exc:\n"
        "    print(exc.code, json.loads(exc.read())['error']['message'])\n",
        encoding="utf-8",
    )
    (tmp_path / "trialrun.toml").write_text("[limits]\nmax_body_mb = 1\n", "utf-8")
    settings = AgentSettings.from_config(load_config(tmp_path / "trialrun.toml"))
    agent = CommandAgent(
        f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}", settings=settings
    )
    task = Task.model_validate(
        {"task_id": "t", "suite": "golden", "description": "d", "inputs": {"prompt": "p"},
         "graders": [{"type": "contains", "value": "x"}], "tracked_metrics": ["pass^k"]}
    )  # fmt: skip
    limits = AgentLimits(max_turns=1, timeout_s=60)
    ws = tmp_path / "ws"
    ws.mkdir()
    box = Toolbox([], ToolContext(ws, "t", {"trial": 0}))
    result = asyncio.run(agent.run(task, ws, box, None, limits))
    assert result.final_text.startswith("413 request body over 1 MiB"), result.final_text
