"""Spec parsing, keys, pricing, redaction and message translation (no network)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.models import Usage, create_model, redact
from trialrun.models._pricing import Price, cost_usd, pricing_table
from trialrun.models.anthropic import from_anthropic, to_anthropic, to_anthropic_tools
from trialrun.models.gemini import clean_schema, from_gemini, to_gemini, to_gemini_tools
from trialrun.models.ollama import ollama_host
from trialrun.models.openai_compat import split_compat_id

HISTORY = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "read a"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.md"}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "b.md"}'},
            },
        ],
    },  # fmt: skip
    {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "A"},
    {"role": "tool", "tool_call_id": "c2", "name": "read_file", "content": "B"},
]
TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}


def test_compat_spec_splits_at_the_url():
    assert split_compat_id("qwen2.5:0.5b@http://127.0.0.1:8000/v1") == (
        "qwen2.5:0.5b",
        "http://127.0.0.1:8000/v1",
    )
    assert split_compat_id("org/m@x@https://h/v1") == ("org/m@x", "https://h/v1")
    with pytest.raises(UserError, match="openai-compat:MODEL@BASE_URL"):
        split_compat_id("qwen")


def test_missing_keys_are_user_errors(monkeypatch):
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY is not set"):
        create_model("openai:gpt-4o-mini")
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY is not set"):
        create_model("anthropic:claude-3-5-haiku-20241022")
    with pytest.raises(UserError, match="GEMINI_API_KEY is not set"):
        create_model("gemini:gemini-2.5-flash")


def test_ollama_host_defaults_and_scheme(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert ollama_host() == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:9999")
    assert ollama_host() == "http://0.0.0.0:9999"
    assert create_model("ollama:qwen2.5:0.5b").base_url == "http://0.0.0.0:9999/v1"


def test_pricing_defaults_config_override_and_unknown():
    usage = Usage(prompt=1_000_000, cached=500_000, completion=1_000_000)
    assert cost_usd("openai", "gpt-4o-mini", usage) == pytest.approx(0.075 + 0.0375 + 0.60)
    assert cost_usd("openai-compat", "mystery@http://x/v1", usage) is None
    assert cost_usd("local", "", usage) == 0.0
    assert cost_usd("scripted", "x.yaml", usage) == 0.0
    config = ProjectConfig(
        data={"pricing": {"openai-compat:mystery": {"input_per_mtok": 1, "output_per_mtok": 2}}}
    )
    table = pricing_table(config)
    assert table["openai-compat:mystery"] == Price(1.0, 1.0, 2.0)
    assert cost_usd("openai-compat", "mystery@http://x/v1", usage, table) == pytest.approx(3.0)
    bad = ProjectConfig(data={"pricing": {"m": {"input_per_mtok": 1, "output": 2}}})
    with pytest.raises(UserError, match="unknown key"):
        pricing_table(bad)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=12, max_size=40))
def test_redaction_hides_keys_headers_and_query_params(secret):
    text = (
        f"boom Authorization: Bearer {secret} x-api-key: {secret} "
        f"GET https://h/v1?key={secret}&alt=json"
    )
    out = redact(text)
    assert secret not in out
    assert out.startswith("boom Authorization: Bearer ***")


def test_redaction_of_environment_key_values(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plain-secret-value")
    assert redact("server said plain-secret-value is wrong") == "server said *** is wrong"
    assert redact("sk-proj-abcdefghijklmnop1234") == "***"


def test_anthropic_translation_merges_tool_results_into_one_user_turn():
    system, turns = to_anthropic(HISTORY)
    assert system == "be brief"
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    uses = turns[1]["content"]
    assert [b["input"] for b in uses] == [{"path": "a.md"}, {"path": "b.md"}]
    results = turns[2]["content"]
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in results] == [
        ("tool_result", "c1", "A"),
        ("tool_result", "c2", "B"),
    ]
    assert to_anthropic_tools([TOOL])[0]["input_schema"]["required"] == ["path"]


def test_anthropic_response_usage_counts_cache_reads_as_cached_prompt():
    response = {
        "content": [{"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}],
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 5},
        "stop_reason": "tool_use",
    }  # fmt: skip
    completion = from_anthropic(response)
    assert completion.text == "ok" and completion.finish_reason == "tool_use"
    assert completion.tool_calls[0].arguments == {"path": "a"}
    assert completion.usage.as_dict() == {"prompt": 100, "cached": 90, "completion": 5}


def test_gemini_translation_and_schema_cleaning():
    system, contents = to_gemini(HISTORY)
    assert system == "be brief"
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    calls = [p["functionCall"] for p in contents[1]["parts"]]
    assert calls == [{"name": "read_file", "args": {"path": "a.md"}},
                     {"name": "read_file", "args": {"path": "b.md"}}]  # fmt: skip
    responses = [p["functionResponse"] for p in contents[2]["parts"]]
    assert responses[1] == {"name": "read_file", "response": {"result": "B"}}
    declaration = to_gemini_tools([TOOL])[0]["functionDeclarations"][0]
    assert "additionalProperties" not in json.dumps(declaration)
    raw = {"type": "object", "$schema": "x", "properties": {"a": {"type": "string", "default": 1}}}
    assert clean_schema(raw) == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_gemini_answer_reads_parts_skips_thoughts_and_names_a_block():
    part = {"functionCall": {"name": "read_file", "args": {"path": "a"}}}
    done = from_gemini(
        {"candidates": [{"content": {"parts": [{"text": "hm", "thought": True}, part,
                                               {"text": "ok"}]}, "finishReason": "STOP"}]}
    )  # fmt: skip
    assert done.text == "ok" and done.finish_reason == "STOP"
    assert [(c.id, c.arguments) for c in done.tool_calls] == [("call_1", {"path": "a"})]
    blocked = from_gemini({"promptFeedback": {"blockReason": "SAFETY"}})
    assert blocked.text is None and blocked.finish_reason == "SAFETY"
