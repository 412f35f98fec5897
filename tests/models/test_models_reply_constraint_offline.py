"""Request shapes of the reply constraint on gemini (`response_schema`), anthropic (a forced
tool call) and ollama (`response_format` on its /v1 API), with fake SDK clients / a
loopback server; and that the constrained reply comes back as plain contract text."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from trialrun.models import CompletionParams, ReplyConstraint
from trialrun.models.anthropic import AnthropicModel
from trialrun.models.gemini import GeminiModel
from trialrun.models.ollama import OllamaModel

YES_NO = ReplyConstraint("yes_no", {"enum": ["YES", "NO"]}, ("YES", "NO"))
RUBRIC = ReplyConstraint(
    "rubric_score",
    {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "maxLength": 200},
            "score": {"enum": [1, 2, 3]},
        },
        "required": ["reason", "score"],
        "additionalProperties": False,
    },
)
ASK = [{"role": "system", "content": "grade"}, {"role": "user", "content": "q"}]


class FakeAnthropic:
    def __init__(self, verdict: dict[str, Any]) -> None:
        self.requests: list[dict[str, Any]] = []
        block = SimpleNamespace(type="tool_use", id="tu_1", name="yes_no", input=verdict)
        self.response = SimpleNamespace(content=[block], usage=None, stop_reason="tool_use")
        self.messages = self

    async def create(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        return self.response


def test_anthropic_forces_a_verdict_tool_and_reads_it_back_as_text():
    model = AnthropicModel("claude-x-20250101", "sk-test", {})
    fake = model._client = FakeAnthropic({"verdict": "NO"})
    params = CompletionParams(max_tokens=16, reply=YES_NO)
    completion = asyncio.run(model.complete(ASK, [], params))
    request = fake.requests[0]
    assert request["tool_choice"] == {"type": "tool", "name": "yes_no"}
    (tool,) = request["tools"]
    assert tool["input_schema"]["properties"]["verdict"] == {"enum": ["YES", "NO"]}
    assert completion.text == "NO" and completion.tool_calls == []


class FakeGemini:
    def __init__(self, text: str) -> None:
        self.calls: list[dict[str, Any]] = []
        part = SimpleNamespace(function_call=None, text=text)
        candidate = SimpleNamespace(finish_reason="STOP", content=SimpleNamespace(parts=[part]))
        self.response = SimpleNamespace(candidates=[candidate], usage_metadata=None)
        self.aio = SimpleNamespace(models=self)

    async def generate_content(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return self.response


def test_gemini_sends_a_json_response_schema_with_integer_scores():
    model = GeminiModel("gemini-2.5-flash", "key", "GEMINI_API_KEY", {})
    fake = model._client = FakeGemini('{"reason": "ok", "score": 2}')
    completion = asyncio.run(model.complete(ASK, [], CompletionParams(reply=RUBRIC)))
    config = fake.calls[0]["config"]
    assert config["response_mime_type"] == "application/json"
    score = config["response_schema"]["properties"]["score"]
    assert score == {"type": "integer", "minimum": 1, "maximum": 3}
    assert completion.text == '{"reason": "ok", "score": 2}'  # the judge reads the JSON


def test_gemini_verdict_enum_is_a_string_enum_unwrapped_on_return():
    model = GeminiModel("gemini-2.5-flash", "key", "GEMINI_API_KEY", {})
    fake = model._client = FakeGemini('{"verdict": "YES"}')
    completion = asyncio.run(model.complete(ASK, [], CompletionParams(reply=YES_NO)))
    verdict = fake.calls[0]["config"]["response_schema"]["properties"]["verdict"]
    assert verdict == {"type": "string", "enum": ["YES", "NO"]}
    assert completion.text == "YES"


def test_ollama_sends_the_schema_as_response_format(fault_server, fast_retries):
    model = OllamaModel("qwen2.5:0.5b", {"host": fault_server.url[: -len("/v1")], "warm_up": False})
    model._ready = True  # skip /api/ps
    fault_server.script(["ok"])
    asyncio.run(model.complete(ASK, [], CompletionParams(reply=YES_NO)))
    body = fault_server.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"] == {"enum": ["YES", "NO"]}
