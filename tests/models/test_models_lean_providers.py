"""`anthropic` and `gemini` on the lean request path, against real HTTP servers on 127.0.0.1.

One stdlib server speaks both APIs: `POST /v1/messages` as Anthropic's Messages API and
`POST /v1beta/models/MODEL:generateContent` as Gemini's. It checks each request's key
header (401 in the API's own error shape otherwise), keeps every request (path, headers,
JSON body) and answers in the API's real response shape: a `write_file` call first, the
final text once the tool result came back. `script([...])` injects faults: "429" (with
`retry-after: 0`), "400", "verdict:<json>" (a forced verdict tool call / JSON text), and
for Gemini "parallel" (two calls at once) and "read" (a `read_file` call). Gemini's side
behaves like Gemini 3 with thought signatures: its first call of each answer carries a
`thoughtSignature`, and a request whose current turn replays a call without that exact
signature is answered 400.
No SDK is imported: both are hidden from `import` for the whole module.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import shlex
import socket
import sys
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from trialrun import run as run_eval
from trialrun.agents import AgentLimits
from trialrun.agents.command import CommandAgent
from trialrun.config import ProjectConfig
from trialrun.errors import InfraError, UserError
from trialrun.models import CompletionParams, ProviderSettings, ReplyConstraint, create_model
from trialrun.rundir import RunDir
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext

pytestmark = pytest.mark.timeout(60)

ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
GEMINI_KEY = "AIza-test-0123456789abcdef"
WRITTEN = "sent over the wire"
ANSWER = "all done"
TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "default": "x"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}
ASK = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def _anthropic_answer(request: dict[str, Any], action: str) -> tuple[int, dict[str, Any]]:
    if action == "429":
        error = {"type": "rate_limit_error", "message": "Number of requests has exceeded"}
        return 429, {"type": "error", "error": error}
    if action == "400":
        error = {"type": "invalid_request_error", "message": "messages: field required"}
        return 400, {"type": "error", "error": error}
    usage = {"input_tokens": 12, "output_tokens": 7, "cache_read_input_tokens": 30}
    if action.startswith("verdict:"):
        name = request["tool_choice"]["name"]
        blocks = [{"type": "tool_use", "id": "toolu_v", "name": name,
                   "input": json.loads(action.split(":", 1)[1])}]  # fmt: skip
        stop = "tool_use"
    elif any(b.get("type") == "tool_result" for b in request["messages"][-1]["content"]):
        blocks, stop = [{"type": "text", "text": ANSWER}], "end_turn"
    else:
        blocks = [
            {"type": "text", "text": "Writing it."},
            {"type": "tool_use", "id": "toolu_01", "name": "write_file",
             "input": {"path": "answer.txt", "content": WRITTEN}},
        ]  # fmt: skip
        stop = "tool_use"
    return 200, {
        "id": "msg_01", "type": "message", "role": "assistant", "model": request["model"],
        "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage,
    }  # fmt: skip


def thought_signature(name: str, args: dict[str, Any]) -> str:
    """The opaque signature the server gives a call (base64 with `+`, `/` and `=`, so any
    re-encoding or trimming on the way back shows)."""
    digest = hashlib.sha256(f"{name}:{json.dumps(args, sort_keys=True)}".encode()).digest()
    return base64.b64encode(digest + b"\xfb\xff").decode()


def _unsigned_call(contents: list[dict[str, Any]]) -> str | None:
    """Gemini 3's check: in the current turn (since the last user text), the first
    `functionCall` of each model step must carry the signature it was given. Returns
    the API's message for the first offence, or None."""
    asked = [i for i, c in enumerate(contents)
             if c["role"] == "user" and any("text" in p for p in c["parts"])]  # fmt: skip
    start = asked[-1] if asked else 0
    for position, content in enumerate(contents[start:], start):
        calls = [p for p in content["parts"] if "functionCall" in p]
        if content["role"] != "model" or not calls:
            continue
        call = calls[0]["functionCall"]
        signature = calls[0].get("thoughtSignature")
        if signature is None:
            return (
                "Function call is missing a thought_signature in functionCall parts. This is "
                "required for tools to work correctly, and missing thought_signature may lead "
                "to degraded model performance. Additional data, function call "
                f"`default_api:{call['name']}` , position {position + 1}. Please refer to "
                "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
            )
        if signature != thought_signature(call["name"], call.get("args") or {}):
            return "Corrupted thought signature."
    return None


def _gemini_answer(request: dict[str, Any], action: str) -> tuple[int, dict[str, Any]]:
    unsigned = _unsigned_call(request["contents"])
    if unsigned is not None:
        return 400, {"error": {"code": 400, "message": unsigned, "status": "INVALID_ARGUMENT"}}
    if action == "429":
        error = {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                 "status": "RESOURCE_EXHAUSTED"}  # fmt: skip
        return 429, {"error": error}
    if action == "400":
        error = {"code": 400, "message": "* GenerateContentRequest.contents: contents is not "
                 "specified", "status": "INVALID_ARGUMENT"}  # fmt: skip
        return 400, {"error": error}
    if action.startswith("verdict:"):
        parts = [{"text": action.split(":", 1)[1]}]
    elif "functionResponse" in request["contents"][-1]["parts"][-1]:
        parts = [{"text": ANSWER}]
    elif action == "read":  # the call tests/servers/proxy_agent.py can run
        args = {"path": "notes/a.md"}
        parts = [{"functionCall": {"name": "read_file", "args": args},
                  "thoughtSignature": thought_signature("read_file", args)}]  # fmt: skip
    elif action == "parallel":  # as Gemini answers parallel calls: only the first is signed
        first = {"path": "answer.txt", "content": WRITTEN}
        parts = [
            {"text": "Writing both."},
            {"functionCall": {"name": "write_file", "args": first},
             "thoughtSignature": thought_signature("write_file", first)},
            {"functionCall": {"name": "write_file",
                              "args": {"path": "other.txt", "content": "more"}}},
        ]  # fmt: skip
    else:
        args = {"path": "answer.txt", "content": WRITTEN}
        parts = [
            {"text": "Writing it."},
            {"functionCall": {"name": "write_file", "args": args},
             "thoughtSignature": thought_signature("write_file", args)},
        ]  # fmt: skip
    return 200, {
        "candidates": [{"content": {"role": "model", "parts": parts},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 9,
                          "totalTokenCount": 49, "cachedContentTokenCount": 16},
        "modelVersion": "gemini-test",
    }  # fmt: skip


class ApiServer:
    """Anthropic's and Gemini's HTTP APIs on 127.0.0.1 (stdlib, a thread per request)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._queue: deque[str] = deque()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                request = json.loads(body)
                with server._lock:
                    server.requests.append({"path": self.path, "headers": headers,
                                            "body": request})  # fmt: skip
                    action = server._queue.popleft() if server._queue else "ok"
                status, answer = server.answer(self.path, headers, request, action)
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                if status == 429:
                    self.send_header("retry-after", "0")
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @staticmethod
    def answer(
        path: str, headers: dict[str, str], request: dict[str, Any], action: str
    ) -> tuple[int, dict[str, Any]]:
        if path == "/v1/messages":
            if headers.get("x-api-key") != ANTHROPIC_KEY:
                error = {"type": "authentication_error", "message": "invalid x-api-key"}
                return 401, {"type": "error", "error": error}
            return _anthropic_answer(request, action)
        if path.startswith("/v1beta/models/") and path.endswith(":generateContent"):
            if headers.get("x-goog-api-key") != GEMINI_KEY:
                error = {"code": 400, "message": "API key not valid. Please pass a valid API "
                         "key.", "status": "INVALID_ARGUMENT"}  # fmt: skip (Gemini's answer)
                return 400, {"error": error}
            return _gemini_answer(request, action)
        return 404, {"error": {"message": f"no route {path}"}}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def script(self, actions: list[str]) -> None:
        with self._lock:
            self._queue = deque(actions)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# the project's settings as an entry point passes them: quick retries and two prices
PRICE = {"input_per_mtok": 1.0, "cached_per_mtok": 0.5, "output_per_mtok": 2.0}
PROJECT = ProjectConfig(Path("/p/trialrun.toml"), {
    "retries": {"max_attempts": 3, "base_delay_s": 0.001, "max_delay_s": 0.01},
    "pricing": {"anthropic:claude-test": PRICE, "gemini:gemini-test": PRICE},
})  # fmt: skip
SETTINGS = ProviderSettings.from_config(PROJECT)


@pytest.fixture
def api(monkeypatch, tmp_path):
    """The server, both keys set, no SDK importable (models made with SETTINGS)."""
    monkeypatch.chdir(tmp_path)
    for var in ("TRIALRUN_RETRY_MAX_ATTEMPTS", "TRIALRUN_RETRY_BASE_DELAY_S", "GOOGLE_API_KEY",
                "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "GEMINI_BASE_URL",
                "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    for name in ("anthropic", "google", "google.genai"):  # fault injection: no SDK at all
        monkeypatch.setitem(sys.modules, name, None)
    server = ApiServer()
    yield server
    server.close()


def spec(provider: str, server: ApiServer) -> str:
    model = "claude-test" if provider == "anthropic" else "gemini-test"
    return f"{provider}:{model}@{server.url}"


async def complete(model_spec: str, messages: list, tools: list, params: CompletionParams):
    model = create_model(model_spec, settings=SETTINGS)
    try:
        return await model.complete(messages, tools, params), model
    finally:
        await model.aclose()


def test_anthropic_request_and_answer_shapes(api):
    done, model = asyncio.run(
        complete(spec("anthropic", api), ASK, [TOOL], CompletionParams(max_tokens=64))
    )
    (sent,) = api.requests
    assert sent["path"] == "/v1/messages"
    headers = sent["headers"]
    assert headers["x-api-key"] == ANTHROPIC_KEY and headers["anthropic-version"] == "2023-06-01"
    assert headers["content-type"] == "application/json"
    assert sent["body"] == {
        "model": "claude-test",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "max_tokens": 64,
        "temperature": 0.0,
        "system": "be brief",
        "tools": [{"name": "read_file", "description": "Read a file.",
                   "input_schema": TOOL["function"]["parameters"]}],
    }  # fmt: skip
    assert done.text == "Writing it." and done.finish_reason == "tool_use"
    (call,) = done.tool_calls
    assert (call.id, call.name, call.arguments) == (
        "toolu_01", "write_file", {"path": "answer.txt", "content": WRITTEN}
    )
    assert done.usage.as_dict() == {"prompt": 42, "cached": 30, "completion": 7}
    assert done.cost_usd == pytest.approx((12 * 1.0 + 30 * 0.5 + 7 * 2.0) / 1e6)
    assert done.latency_s > 0 and model.stats.attempts == 1


def test_gemini_request_and_answer_shapes(api):
    history = [*ASK, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "read_file", "arguments": '{"path": "a.md"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "text of a"},
        {"role": "user", "content": "and now?"}]  # fmt: skip
    done, _ = asyncio.run(
        complete(spec("gemini", api), history, [TOOL], CompletionParams(max_tokens=64, seed=3))
    )
    (sent,) = api.requests
    assert sent["path"] == "/v1beta/models/gemini-test:generateContent"
    assert sent["headers"]["x-goog-api-key"] == GEMINI_KEY
    assert sent["body"] == {
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model",
             "parts": [{"functionCall": {"name": "read_file", "args": {"path": "a.md"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "read_file", "response": {"result": "text of a"}}},
                {"text": "and now?"}]},
        ],
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "generationConfig": {"temperature": 0.0, "maxOutputTokens": 64, "seed": 3},
        "tools": [{"functionDeclarations": [{
            "name": "read_file", "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                           "required": ["path"]}}]}],
    }  # fmt: skip
    assert done.text == "Writing it." and done.finish_reason == "STOP"
    (call,) = done.tool_calls
    assert (call.name, call.arguments) == ("write_file", {"path": "answer.txt", "content": WRITTEN})
    assert done.usage.as_dict() == {"prompt": 40, "cached": 16, "completion": 9}
    assert done.cost_usd == pytest.approx((24 * 1.0 + 16 * 0.5 + 9 * 2.0) / 1e6)


def test_base_urls_come_from_the_environment_as_the_sdks_read_them(api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url + "/")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", api.url)
    asyncio.run(complete("anthropic:claude-test", ASK, [], CompletionParams()))
    asyncio.run(complete("gemini:models/gemini-test", ASK, [], CompletionParams()))
    paths = [r["path"] for r in api.requests]
    assert paths == ["/v1/messages", "/v1beta/models/gemini-test:generateContent"]
    assert api.requests[0]["body"]["max_tokens"] == 4096  # the default, as before


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_a_task_serialises_its_tools_once(api, provider, monkeypatch):
    import trialrun.models._http as http

    dumps, calls = http.json.dumps, []

    def counting(value: Any, **kw: Any) -> str:
        if isinstance(value, list):
            calls.append(value)
        return dumps(value, **kw)

    monkeypatch.setattr(http.json, "dumps", counting)

    async def main() -> None:
        model = create_model(spec(provider, api), settings=SETTINGS)
        for _ in range(3):  # three trials build their own lists from the same tools
            await model.complete(ASK, [dict(TOOL)], CompletionParams())
        await model.aclose()

    asyncio.run(main())
    assert len(calls) == 1  # the translated tool list, once
    assert len({json.dumps(r["body"]["tools"]) for r in api.requests}) == 1


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_429_is_retried_then_succeeds(api, provider):
    api.script(["429"])
    done, model = asyncio.run(complete(spec(provider, api), ASK, [], CompletionParams()))
    assert done.tool_calls and len(api.requests) == 2
    assert (model.stats.attempts, model.stats.retries) == (2, 1)


@pytest.mark.parametrize(
    ("provider", "wording"),
    [
        ("anthropic", "HTTP 400: Error code: 400 - messages: field required"),
        ("gemini", "HTTP 400: Error code: 400 - * GenerateContentRequest.contents: contents "
                   "is not specified"),
    ],
)  # fmt: skip
def test_400_is_one_line_with_the_apis_message_and_not_retried(api, provider, wording):
    api.script(["400"])
    with pytest.raises(InfraError) as info:
        asyncio.run(complete(spec(provider, api), ASK, [], CompletionParams()))
    message = str(info.value)
    assert message.startswith(f"{spec(provider, api)}: {wording}")
    assert "\n" not in message and "attempt" not in message and len(api.requests) == 1
    assert "check" not in message  # a malformed request is not a key problem


def test_a_wrong_gemini_key_is_a_400_that_names_the_variable(api, monkeypatch):
    """Gemini answers a bad key with 400 INVALID_ARGUMENT "API key not valid": the fix
    names the variable then (and only then, among 400s)."""
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-wrong-key-0123456789")
    with pytest.raises(InfraError) as info:
        asyncio.run(complete(spec("gemini", api), ASK, [], CompletionParams()))
    message = str(info.value)
    assert "HTTP 400: Error code: 400 - API key not valid. Please pass a valid API key.; " \
        "check GEMINI_API_KEY" in message
    assert "AIza-wrong-key" not in message


def test_429_every_time_ends_after_the_configured_attempts(api):
    api.script(["429"] * 3)
    with pytest.raises(InfraError) as info:
        asyncio.run(complete(spec("gemini", api), ASK, [], CompletionParams()))
    assert str(info.value) == (
        f"{spec('gemini', api)}: HTTP 429: Error code: 429 - Resource has been exhausted "
        "(e.g. check quota). after 3 attempt(s)"
    )


def test_a_wrong_key_is_fatal_with_the_fix_and_never_shown(api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong-key-0123456789")
    with pytest.raises(InfraError) as info:
        asyncio.run(complete(spec("anthropic", api), ASK, [], CompletionParams()))
    message = str(info.value)
    assert "HTTP 401: Error code: 401 - invalid x-api-key; check ANTHROPIC_API_KEY" in message
    assert "sk-ant-wrong" not in message and len(api.requests) == 1


def test_missing_keys_are_the_one_line_user_errors(api, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("GEMINI_API_KEY")
    with pytest.raises(UserError) as info:
        create_model(spec("anthropic", api), settings=SETTINGS)
    assert str(info.value) == (
        f"--model {spec('anthropic', api)}: ANTHROPIC_API_KEY is not set; export it"
    )
    with pytest.raises(UserError, match=r"^--model gemini:gemini-test@.*: GEMINI_API_KEY is not"):
        create_model(spec("gemini", api), settings=SETTINGS)
    assert api.requests == []


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_a_refused_connection_is_the_sdks_connection_error(api, provider):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    name = "claude-test" if provider == "anthropic" else "gemini-test"
    with pytest.raises(InfraError) as info:
        asyncio.run(
            complete(f"{provider}:{name}@http://127.0.0.1:{port}", ASK, [], CompletionParams())
        )
    assert str(info.value).endswith("APIConnectionError: Connection error. after 3 attempt(s)")


YES_NO = ReplyConstraint("yes_no", {"enum": ["YES", "NO"]}, ("YES", "NO"))
RUBRIC = ReplyConstraint(
    "rubric_score",
    {
        "type": "object",
        "properties": {"reason": {"type": "string", "maxLength": 200},
                       "score": {"enum": [1, 2, 3]}},
        "required": ["reason", "score"],
        "additionalProperties": False,
    },
)  # fmt: skip


def test_anthropic_forces_a_verdict_tool_and_reads_it_back_as_text(api):
    api.script(['verdict:{"verdict": "NO"}'])
    params = CompletionParams(max_tokens=16, reply=YES_NO)
    done, _ = asyncio.run(complete(spec("anthropic", api), ASK, [], params))
    body = api.requests[0]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "yes_no"}
    (tool,) = body["tools"]
    assert tool["input_schema"]["properties"]["verdict"] == {"enum": ["YES", "NO"]}
    assert done.text == "NO" and done.tool_calls == []


def test_gemini_sends_a_json_response_schema_and_unwraps_the_verdict(api):
    api.script(['verdict:{"reason": "ok", "score": 2}', 'verdict:{"verdict": "YES"}'])
    rubric, _ = asyncio.run(complete(spec("gemini", api), ASK, [], CompletionParams(reply=RUBRIC)))
    verdict, _ = asyncio.run(complete(spec("gemini", api), ASK, [], CompletionParams(reply=YES_NO)))
    first, second = (r["body"]["generationConfig"] for r in api.requests)
    assert first["responseMimeType"] == "application/json"
    score = first["responseSchema"]["properties"]["score"]
    assert score == {"type": "integer", "minimum": 1, "maximum": 3}
    assert rubric.text == '{"reason": "ok", "score": 2}'  # the judge reads the JSON
    assert second["responseSchema"]["properties"]["verdict"] == {
        "type": "string", "enum": ["YES", "NO"]
    }  # fmt: skip
    assert verdict.text == "YES"


def test_a_real_trial_through_the_tool_loop_on_both_apis(api, tmp_path, write_file_task):
    api.script(["429"])  # the first request of the run is rate-limited once
    outcome = run_eval(
        [write_file_task],
        [spec("anthropic", api), spec("gemini", api)],
        k=2,
        concurrency=2,
        out=tmp_path / "out",
        handle_sigint=False,
        project=PROJECT,
    )
    assert len(outcome.results) == 4
    for line in outcome.results:
        assert line.error is None, line.error
        assert line.passed is True and line.solve is True
        assert line.final_text == ANSWER and line.turns == 2
        assert [(c["name"], c["ok"]) for c in line.tool_calls] == [("write_file", True)]
    requests = api.requests
    assert len(requests) == 9  # 4 trials × 2 turns, and the one retried 429
    anthropic = [r["body"] for r in requests if r["path"] == "/v1/messages"]
    gemini = [r["body"] for r in requests if r["path"] != "/v1/messages"]
    # every request carried the built-in tools, translated once per task
    assert len({json.dumps(b["tools"]) for b in anthropic}) == 1
    assert "write_file" in {t["name"] for t in anthropic[0]["tools"]}
    assert len({json.dumps(b["tools"]) for b in gemini}) == 1
    assert "write_file" in {d["name"] for d in gemini[0]["tools"][0]["functionDeclarations"]}
    # the tool's result went back in each API's own shape
    results = [b["messages"][-1]["content"][0] for b in anthropic
               if b["messages"][-1]["content"][0]["type"] == "tool_result"]  # fmt: skip
    assert len(results) == 2 and {r["tool_use_id"] for r in results} == {"toolu_01"}
    responses = [b["contents"][-1]["parts"][0] for b in gemini
                 if "functionResponse" in b["contents"][-1]["parts"][0]]  # fmt: skip
    assert len(responses) == 2
    assert {r["functionResponse"]["name"] for r in responses} == {"write_file"}


def test_gemini_3_thought_signatures_go_back_unchanged_on_their_calls(
    api, tmp_path, write_file_task
):
    api.script(["parallel"])  # the first answer: two calls, only the first one signed
    outcome = run_eval(
        [write_file_task], [spec("gemini", api)], k=1, out=tmp_path / "out",
        handle_sigint=False, project=PROJECT,
    )
    (line,) = outcome.results
    assert line.error is None, line.error
    assert line.passed is True and line.final_text == ANSWER and line.turns == 2
    assert [(c["name"], c["ok"]) for c in line.tool_calls] == [("write_file", True)] * 2
    first, second = (r["body"] for r in api.requests)  # no 400 on the way: 2 requests
    assert [c["role"] for c in first["contents"]] == ["user"]
    written = {"path": "answer.txt", "content": WRITTEN}
    assert second["contents"][1] == {"role": "model", "parts": [
        {"text": "Writing both."},
        {"functionCall": {"name": "write_file", "args": written},
         "thoughtSignature": thought_signature("write_file", written)},
        {"functionCall": {"name": "write_file",
                          "args": {"path": "other.txt", "content": "more"}}},
    ]}  # fmt: skip
    # the transcript keeps the history as the loop held it: the signature on its call
    messages = RunDir.open(outcome.path).transcript(line).messages
    (assistant,) = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    extras = [c.get("extra_content") for c in assistant["tool_calls"]]
    assert extras == [{"google": {"thought_signature": thought_signature("write_file", written)}},
                      None]  # fmt: skip


def test_gemini_3_answers_400_for_a_call_replayed_without_its_exact_signature(api):
    args = {"path": "a.md"}
    good = thought_signature("read_file", args)

    def history(extra: dict[str, Any] | None) -> list[dict[str, Any]]:
        call = {"id": "c1", "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps(args)}}  # fmt: skip
        if extra is not None:
            call["extra_content"] = extra
        return [*ASK, {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "text of a"}]  # fmt: skip

    for extra, said in [
        (None, "Function call is missing a thought_signature in functionCall parts."),
        ({"google": {"thought_signature": good[:-1]}}, "Corrupted thought signature."),
    ]:
        with pytest.raises(InfraError, match=f"HTTP 400: Error code: 400 - {said}"):
            asyncio.run(complete(spec("gemini", api), history(extra), [TOOL], CompletionParams()))
    signed = {"google": {"thought_signature": good}}
    done, _ = asyncio.run(
        complete(spec("gemini", api), history(signed), [TOOL], CompletionParams())
    )
    assert done.text == ANSWER
    assert [r["body"]["contents"][1]["parts"][0].get("thoughtSignature")
            for r in api.requests] == [None, good[:-1], good]  # fmt: skip


def test_a_command_agent_behind_the_proxy_hands_the_signature_back(api, tmp_path):
    """agent script (openai SDK) → trialrun's proxy → gemini → this server: the proxy's
    reply carries the call's `extra_content` as Gemini's OpenAI-compatible API does, the
    SDK keeps it in the message the agent echoes, and it reaches Gemini again."""
    api.script(["read"])
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("hello world\n", encoding="utf-8")
    task = Task.model_validate({
        "task_id": "read-note", "suite": "golden", "description": "d",
        "inputs": {"prompt": "What does notes/a.md say?"},
        "graders": [{"type": "contains", "value": "done"}], "tracked_metrics": ["pass^k"],
    })  # fmt: skip
    agent_script = Path(__file__).resolve().parents[1] / "servers" / "proxy_agent.py"
    agent = CommandAgent(f"{shlex.quote(sys.executable)} {agent_script} {{prompt}}")
    model = create_model(spec("gemini", api), settings=SETTINGS)
    box = Toolbox([], ToolContext(tmp_path, task.task_id))

    async def main():
        try:
            return await agent.run(task, tmp_path, box, model, AgentLimits(5, timeout_s=60))
        finally:
            await model.aclose()

    run = asyncio.run(main())
    assert run.infra_error is None and run.failure is None, run.failure_message
    assert run.final_text == ANSWER and run.turns == 2
    assert len(api.requests) == 2  # no 400 on the way
    second = api.requests[1]["body"]
    assert second["contents"][1] == {"role": "model", "parts": [
        {"functionCall": {"name": "read_file", "args": {"path": "notes/a.md"}},
         "thoughtSignature": thought_signature("read_file", {"path": "notes/a.md"})}]}  # fmt: skip
    assert second["contents"][2]["parts"][0]["functionResponse"]["response"] == {
        "result": "hello world\n"
    }
