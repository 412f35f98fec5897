"""The embedded local model: constrained actions, timeouts, the sha256 and smoke checks."""

from __future__ import annotations

import asyncio
import json
import stat

import pytest

from conftest import embedded_gguf, needs_llama
from trialrun.errors import ModelTimeout, UserError
from trialrun.models import CompletionParams, create_model
from trialrun.models import local as local_mod
from trialrun.models._local_constraint import (
    FINAL,
    action_messages,
    action_schema,
    parse_action,
)
from trialrun.tools import check_arguments

READ = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a note.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "note path"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}
LIST = {
    "type": "function",
    "function": {
        "name": "list_files",
        "description": "List files in a folder.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "recursive": {"type": "boolean"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}
HISTORY = [
    {"role": "system", "content": "You work in the user's vault."},
    {"role": "user", "content": "What does notes/capital.md say?"},
]


def test_action_schema_has_one_option_per_tool_plus_final_answer():
    schema = action_schema([READ, LIST])
    names = [o["properties"]["tool"]["const"] for o in schema["anyOf"]]
    assert names == ["read_file", "list_files", FINAL]
    first = schema["anyOf"][0]
    assert list(first["properties"]) == ["tool", "arguments"]  # the tool name comes first
    assert first["properties"]["arguments"]["required"] == ["path"]
    assert "description" not in first["properties"]["arguments"]["properties"]["path"]


def test_history_is_rewritten_in_the_action_format():
    messages = [
        *HISTORY,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "notes/capital.md"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "Paris"},
    ]
    out = action_messages(messages, [READ])
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert "You work in the user's vault." in out[0]["content"]
    assert "- read_file: Read a note." in out[0]["content"]
    assert json.loads(out[2]["content"]) == {
        "tool": "read_file",
        "arguments": {"path": "notes/capital.md"},
    }
    assert out[3]["content"] == "Result of read_file:\nParis"


def test_parse_action_gives_tool_calls_final_text_or_raw_text():
    call = parse_action('{"tool": "read_file", "arguments": {"path": "a.md"}}', "c1")
    assert call.tool_calls[0].name == "read_file"
    assert call.tool_calls[0].arguments == {"path": "a.md"} and call.text is None
    final = parse_action('{"tool": "final_answer", "answer": "Paris"}', "c2")
    assert final.text == "Paris" and final.tool_calls == []
    broken = parse_action('{"tool": "final_answer", "answer": "Par', "c3")
    assert broken.text.startswith('{"tool"') and broken.finish_reason == "length"


def test_not_a_gguf_file_is_a_user_error(tmp_path):
    needs_llama()
    bogus = tmp_path / "model.gguf"
    bogus.write_text("hello")
    with pytest.raises(UserError, match="not a GGUF file"):
        create_model(f"local:{bogus}")
    with pytest.raises(UserError, match="file not found"):
        create_model(f"local:{tmp_path / 'missing.gguf'}")


def test_embedded_model_sha256_is_checked_before_loading(monkeypatch):
    needs_llama()
    monkeypatch.setattr(local_mod, "EMBEDDED_SHA256", "0" * 64)
    model = create_model("local")
    with pytest.raises(UserError, match="expected 000000000000"):
        model.ensure_loaded()
    assert model._llama is None


def test_smoke_test_turns_a_native_crash_into_a_clear_message(tmp_path, monkeypatch):
    needs_llama()
    monkeypatch.setenv("TRIALRUN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(local_mod, "_SMOKE_OK", set())
    crashing = tmp_path / "python"
    crashing.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crashing.chmod(crashing.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(UserError, match=r"crashes here.*-DGGML_NATIVE=OFF.*--no-cache-dir"):
        local_mod.smoke_test(embedded_gguf(), python=str(crashing))
    assert not list((tmp_path / "cache").glob("*.ok"))  # a failure is never cached
    # a healthy interpreter passes and is remembered in a marker file
    local_mod.smoke_test(embedded_gguf())
    assert len(list((tmp_path / "cache").glob("llama-smoke-*.ok"))) == 1


@pytest.mark.local_model
def test_local_model_makes_a_valid_tool_call_or_final_answer():
    needs_llama()
    model = create_model("local")
    params = CompletionParams(task_id="t", max_tokens=48)
    completion = asyncio.run(model.complete(HISTORY, [READ, LIST], params))
    assert completion.cost_usd == 0.0
    assert completion.usage.prompt > 0 and completion.usage.completion > 0
    if completion.tool_calls:
        (call,) = completion.tool_calls
        spec = {"read_file": READ, "list_files": LIST}[call.name]["function"]
        assert call.arguments_error is None
        assert check_arguments(spec["parameters"], call.arguments) is None
    else:
        assert isinstance(completion.text, str)
    assert model.describe()["sha256"] == local_mod.EMBEDDED_SHA256
    # the second call shares the system prompt: llama.cpp reuses that prefix
    again = asyncio.run(model.complete(HISTORY, [READ, LIST], params))
    assert again.usage.cached > 0


@pytest.mark.local_model
def test_local_model_call_over_its_timeout_raises_model_timeout():
    needs_llama()
    model = create_model("local")
    params = CompletionParams(timeout_s=1e-6, max_tokens=256)
    with pytest.raises(ModelTimeout, match="exceeded"):
        asyncio.run(model.complete(HISTORY, [READ], params))
