"""Issue 32, item 9 (first part): a malformed reply is the provider's fault, not the model's.

`message: null`, `content: 5`, `tool_calls: "x"`, `usage.prompt_tokens: Infinity` and the
like used to be read as an empty answer (charged to the model as a failed trial) or to
crash the call. Each provider's reply parser now checks the shape and raises the infra
error naming what was wrong ("reply choices[0].message is null"). Every reply goes over
a real loopback HTTP server (`tests/servers/hostile_http_server.py`); hypothesis mutates
valid replies at random places: the answer is always a well-typed Completion or an
infra error, never a crash.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun import run as run_eval
from trialrun.config import ProjectConfig
from trialrun.errors import InfraError
from trialrun.judge import JudgeSettings, ask, parse_yes_no, yes_no_prompt
from trialrun.models import Completion, CompletionParams, ProviderSettings, create_model
from trialrun.tasks import Task

SERVERS = Path(__file__).resolve().parents[1] / "servers"
if str(SERVERS) not in sys.path:
    sys.path.insert(0, str(SERVERS))

from hostile_http_server import HostileServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)

OPENAI_OK: dict[str, Any] = {
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "hi",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "a"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "prompt_tokens_details": {"cached_tokens": 4},
    },
}
GEMINI_OK: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "hi", "thoughtSignature": "sig"},
                    {"functionCall": {"name": "read_file", "args": {"path": "a"}}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 10,
        "candidatesTokenCount": 2,
        "cachedContentTokenCount": 4,
    },
}
ANTHROPIC_OK: dict[str, Any] = {
    "content": [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
    ],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_input_tokens": 4},
}
VALID = {"openai-compat": OPENAI_OK, "gemini": GEMINI_OK, "anthropic": ANTHROPIC_OK}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


@pytest.fixture(scope="module")
def server():
    srv = HostileServer()
    yield srv
    srv.close()


# a project's trialrun.toml that never retries, as its entry point passes it on
ONE_ATTEMPT = ProviderSettings.from_config(
    ProjectConfig(Path("/p/trialrun.toml"), {"retries": {"max_attempts": 1}})
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project folder whose trialrun.toml never retries (one request per call)."""
    folder = tmp_path_factory.mktemp("replies")
    (folder / "trialrun.toml").write_text("[retries]\nmax_attempts = 1\n", encoding="utf-8")
    return folder


class Client:
    """One model per provider on one event loop, kept across calls (and examples)."""

    def __init__(self, server: HostileServer) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.models: dict[str, Any] = {}

    def model(self, provider: str) -> Any:
        if provider not in self.models:
            spec = {
                "openai-compat": f"openai-compat:m@{self.server.url}/v1",
                "gemini": f"gemini:m@{self.server.url}",
                "anthropic": f"anthropic:m@{self.server.url}",
            }[provider]
            self.models[provider] = create_model(spec, settings=ONE_ATTEMPT)
        return self.models[provider]

    def call(self, provider: str, body: bytes) -> Completion:
        self.server.reply(body)
        messages = [{"role": "user", "content": "hi"}]
        params = CompletionParams(timeout_s=30)
        return self.loop.run_until_complete(
            self.model(provider).complete(messages, TOOLS, params)
        )

    def close(self) -> None:
        for model in self.models.values():
            self.loop.run_until_complete(model.aclose())
        self.loop.close()


@pytest.fixture(scope="module")
def client(server, project):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        patch.setenv("GEMINI_API_KEY", "k")
        patch.setenv("ANTHROPIC_API_KEY", "k")
        for var in ("TRIALRUN_RETRY_MAX_ATTEMPTS", "HTTP_PROXY", "http_proxy"):
            patch.delenv(var, raising=False)
        made = Client(server)
        yield made
        made.close()


def mutated(provider: str, path: tuple[Any, ...], value: Any) -> bytes:
    """The provider's valid reply with the value at `path` replaced (JSON text, NaN and
    Infinity allowed as Python's json writes them)."""
    reply = copy.deepcopy(VALID[provider])
    node = reply
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return json.dumps(reply).encode()


INF = float("inf")
CASES = [
    # (provider, path in the reply, the value put there, what the error names)
    ("openai-compat", ("choices", 0, "message"), None, "reply choices[0].message is null"),
    ("openai-compat", ("choices", 0, "message", "content"), 5,
     "reply choices[0].message.content is a number"),
    ("openai-compat", ("choices", 0, "message", "tool_calls"), "x",
     "reply choices[0].message.tool_calls is text"),
    ("openai-compat", ("usage", "prompt_tokens"), INF, "reply usage.prompt_tokens is Infinity"),
    ("openai-compat", ("usage", "completion_tokens"), -3,
     "reply usage.completion_tokens is a number (-3)"),
    ("openai-compat", ("usage", "prompt_tokens"), True, "reply usage.prompt_tokens is true"),
    ("openai-compat", ("usage",), [], "reply usage is a list"),
    ("openai-compat", ("choices", 0), "x", "reply choices[0] is text"),
    ("openai-compat", ("choices", 0, "message", "tool_calls", 0), 5,
     "reply choices[0].message.tool_calls[0] is a number"),
    ("openai-compat", ("choices", 0, "message", "tool_calls", 0, "function"), None,
     "reply choices[0].message.tool_calls[0].function is null"),
    ("openai-compat", ("choices", 0, "message", "tool_calls", 0, "function", "name"), 7,
     "reply choices[0].message.tool_calls[0].function.name is a number"),
    ("openai-compat", ("choices", 0, "message", "tool_calls", 0, "function", "arguments"),
     [1], "reply choices[0].message.tool_calls[0].function.arguments is a list"),
    ("openai-compat", ("choices", 0, "finish_reason"), {}, "reply choices[0].finish_reason"),
    ("openai-compat", ("usage", "prompt_tokens_details"), "x",
     "reply usage.prompt_tokens_details is text"),
    ("gemini", ("candidates",), "x", "reply candidates is text"),
    ("gemini", ("candidates", 0), None, "reply candidates[0] is null"),
    ("gemini", ("candidates", 0, "content", "parts"), "x",
     "reply candidates[0].content.parts is text"),
    ("gemini", ("candidates", 0, "content", "parts", 0), 5,
     "reply candidates[0].content.parts[0] is a number"),
    ("gemini", ("candidates", 0, "content", "parts", 0, "text"), 5,
     "reply candidates[0].content.parts[0].text is a number"),
    ("gemini", ("candidates", 0, "content", "parts", 1, "functionCall"), "x",
     "reply candidates[0].content.parts[1].functionCall is text"),
    ("gemini", ("candidates", 0, "content", "parts", 1, "functionCall", "name"), None,
     "reply candidates[0].content.parts[1].functionCall.name is null"),
    ("gemini", ("candidates", 0, "content", "parts", 1, "functionCall", "args"), "x",
     "reply candidates[0].content.parts[1].functionCall.args is text"),
    ("gemini", ("usageMetadata", "promptTokenCount"), INF,
     "reply usageMetadata.promptTokenCount is Infinity"),
    ("anthropic", ("content", 0), 5, "reply content[0] is a number"),
    ("anthropic", ("content", 0, "text"), None, "reply content[0].text is null"),
    ("anthropic", ("content", 1, "name"), 5, "reply content[1].name is a number"),
    ("anthropic", ("content", 1, "input"), "x", "reply content[1].input is text"),
    ("anthropic", ("usage", "input_tokens"), INF, "reply usage.input_tokens is Infinity"),
    ("anthropic", ("stop_reason",), 5, "reply stop_reason is a number"),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "path", "value", "named"), CASES)
def test_a_malformed_reply_is_an_infra_error_naming_what_was_wrong(
    client, provider, path, value, named
):
    with pytest.raises(InfraError) as caught:
        client.call(provider, mutated(provider, path, value))
    assert named in str(caught.value)


@pytest.mark.parametrize("provider", sorted(VALID))
def test_the_valid_reply_reads_as_before(client, provider):
    done = client.call(provider, json.dumps(VALID[provider]).encode())
    assert done.text == "hi"
    assert [(c.name, c.arguments) for c in done.tool_calls] == [("read_file", {"path": "a"})]
    assert (done.usage.prompt, done.usage.completion, done.usage.cached) in ((10, 2, 4), (14, 2, 4))


@pytest.mark.parametrize(
    ("provider", "reply", "text"),
    [
        # nothing said is an answer (the model's), not a malformed reply
        ("openai-compat", {"choices": [{"message": {"role": "assistant", "content": None}}]},
         None),
        # content as a list of text parts (some OpenAI-compatible servers)
        ("openai-compat", {"choices": [{"message": {"content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}, "ab"),
        # counts as integral floats, usage null
        ("openai-compat", {"choices": [{"message": {"content": "x"}}],
                           "usage": {"prompt_tokens": 3.0, "completion_tokens": None}}, "x"),
        # a safety stop: a candidate without content
        ("gemini", {"candidates": [{"finishReason": "SAFETY"}]}, None),
        # a blocked prompt: no candidates, only the reason
        ("gemini", {"promptFeedback": {"blockReason": "SAFETY"}}, None),
        # blocks Anthropic adds over time are passed over
        ("anthropic", {"content": [{"type": "thinking", "thinking": "hm"},
                                   {"type": "text", "text": "ok"}]}, "ok"),
    ],
)  # fmt: skip
def test_well_formed_edge_replies_still_read(client, provider, reply, text):
    assert client.call(provider, json.dumps(reply).encode()).text == text


def test_a_reply_nested_too_deep_is_an_infra_error(client):
    body = b'{"choices":[{"message":{"content":"x"}}],"pad":' + b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(InfraError, match="nested"):
        client.call("openai-compat", body + b"}")


# --- fuzz ---------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a reply a value can be replaced at."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in items:
        found.append((*prefix, key))
        if isinstance(child, dict | list) and child:
            found.extend(paths(child, (*prefix, key)))
    return found


PLACES = [(provider, path) for provider in sorted(VALID) for path in paths(VALID[provider])]


def well_typed(done: Completion) -> bool:
    usage = (done.usage.prompt, done.usage.cached, done.usage.completion)
    return (
        isinstance(done.text, str | None)
        and all(type(n) is int and n >= 0 for n in usage)
        and all(isinstance(c.name, str) and isinstance(c.arguments, dict) for c in done.tool_calls)
        and all(isinstance(c.id, str) for c in done.tool_calls)
        and isinstance(done.finish_reason, str | None)
        and (done.cost_usd is None or math.isfinite(done.cost_usd))
    )


@settings(max_examples=300, deadline=None)
@given(place=st.sampled_from(PLACES), value=JSON_VALUES, extra=st.booleans())
def test_any_reply_shape_is_a_well_typed_completion_or_an_infra_error(
    client, place, value, extra
):
    provider, path = place
    body = mutated(provider, path, value)
    if extra:  # also an unknown key beside it: ignored
        body = body[:-1] + b', "zz": 1}'
    try:
        done = client.call(provider, body)
    except InfraError as exc:
        assert str(exc).strip() and "\n" not in str(exc)
    else:
        assert well_typed(done), done


# --- where it lands -----------------------------------------------------------------


def test_a_trial_answered_by_a_malformed_reply_is_infra_not_failed(server, tmp_path, monkeypatch):
    (tmp_path / "trialrun.toml").write_text("[retries]\nmax_attempts = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    task = Task.model_validate(
        {"task_id": "t", "suite": "golden", "description": "d", "inputs": {"prompt": "p"},
         "graders": [{"type": "contains", "value": "hi"}], "tracked_metrics": ["pass^k"]}
    )  # fmt: skip
    server.reply(json.dumps({"choices": [{"message": None}]}).encode())
    outcome = run_eval(
        [task], [f"openai-compat:m@{server.url}/v1"], k=2, out=tmp_path / "out",
        handle_sigint=False, fsync=False,
    )  # fmt: skip
    for line in outcome.results:
        assert line.error is not None and line.error["kind"] == "infra", line.error
        assert "reply choices[0].message is null" in line.error["message"]
        assert line.passed is None and line.solve is None


def test_a_judge_answering_malformed_replies_is_unavailable_not_a_judge_error(
    server, tmp_path, monkeypatch
):
    (tmp_path / "trialrun.toml").write_text("[retries]\nmax_attempts = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    server.reply(json.dumps({"choices": [{"message": {"content": 5}}]}).encode())
    judge = create_model(f"openai-compat:j@{server.url}/v1", settings=ONE_ATTEMPT)
    prompt = yes_no_prompt("question", "answer", "is it right?")

    async def main() -> Any:
        try:
            return await ask(judge, prompt, parse_yes_no, settings=JudgeSettings(cache=False))
        finally:
            await judge.aclose()

    outcome = asyncio.run(main())
    assert outcome.error is None and outcome.value is None
    assert "reply choices[0].message.content is a number" in (outcome.skipped or "")
