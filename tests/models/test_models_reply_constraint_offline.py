"""Request shape of the reply constraint on ollama (`response_format` on its /v1 API), with
a loopback server. (gemini's `responseSchema` and anthropic's forced tool call are tested
against their own loopback APIs in tests/models/test_models_lean_providers.py.)"""

from __future__ import annotations

import asyncio

from trialrun.models import CompletionParams, ReplyConstraint
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


def test_ollama_sends_the_schema_as_response_format(fault_server, fast_retries):
    model = OllamaModel("qwen2.5:0.5b", {"host": fault_server.url[: -len("/v1")], "warm_up": False})
    model._ready = True  # skip /api/ps
    fault_server.script(["ok"])
    asyncio.run(model.complete(ASK, [], CompletionParams(reply=YES_NO)))
    body = fault_server.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"] == {"enum": ["YES", "NO"]}
