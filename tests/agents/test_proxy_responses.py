"""OpenAI Responses through the recording proxy, talked to with the real `openai` SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_support import WRITE, behind_proxy, write_then_answer

from trialrun.agents.command import run_from_traffic
from trialrun.agents.wire import WireRequest, wire_api
from trialrun.models import Completion, ToolCall, Usage

RESPONSES = wire_api("responses")
TOOLS = [
    {
        "type": "function",
        "name": "write_file",
        "description": "Write a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]


def _client(proxy: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=proxy.url, api_key="trialrun", max_retries=0)


async def _round_trip(proxy: Any, stream: bool) -> list[Any]:
    """The Codex loop: ask, run the tool the model called, send its output, ask again."""
    client = _client(proxy)
    history: list[Any] = [{"role": "user", "content": [{"type": "input_text", "text": "Do it"}]}]
    answers = []
    for _ in range(2):
        kwargs = dict(model="m", instructions="Be brief.", input=history, tools=TOOLS)
        if stream:
            events = [event async for event in await client.responses.create(**kwargs, stream=True)]
            answers.append(events)
            response = events[-1].response
        else:
            response = await client.responses.create(**kwargs)
            answers.append(response)
        for item in response.output:
            history.append(item.model_dump(exclude_none=True))
            if item.type == "function_call":
                output = {"type": "function_call_output", "call_id": item.call_id, "output": "ok"}
                history.append(output)
    await client.close()
    return answers


def _check_recorded(proxy: Any) -> None:
    exchanges = proxy.log.exchanges
    assert [e.api for e in exchanges] == ["responses", "responses"]
    assert exchanges[0].messages[0] == {"role": "system", "content": "Be brief."}
    assert exchanges[0].tools[0]["function"]["name"] == "write_file"
    run = run_from_traffic(proxy.log, "Wrote todo.md.", "Do it")
    assert [(c.name, c.arguments, c.result, c.ok) for c in run.tool_calls] == [
        ("write_file", WRITE["arguments"], "ok", True)
    ]
    assert run.turns == 2
    assert run.usage.as_dict() == {"prompt": 80, "cached": 10, "completion": 13}


def test_tool_call_round_trip_without_streaming(tmp_path):
    (first, second), proxy = behind_proxy(
        tmp_path, write_then_answer(), lambda p: _round_trip(p, False)
    )
    call = first.output[0]
    assert (call.type, call.name, json.loads(call.arguments)) == (
        "function_call",
        "write_file",
        WRITE["arguments"],
    )
    assert first.usage.input_tokens == 30 and first.usage.input_tokens_details.cached_tokens == 10
    assert second.output_text == "Wrote todo.md."
    _check_recorded(proxy)


def test_tool_call_round_trip_streamed_as_the_events_codex_reads(tmp_path):
    (first, second), proxy = behind_proxy(
        tmp_path, write_then_answer(), lambda p: _round_trip(p, True)
    )
    assert [e.type for e in first] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in first] == list(range(7))
    assert json.loads(first[3].delta) == WRITE["arguments"]
    done = first[5].item
    assert (done.type, done.name, done.call_id) == ("function_call", "write_file", "call_0_0")
    assert first[-1].response.usage.output_tokens == 9
    deltas = "".join(e.delta for e in second if e.type == "response.output_text.delta")
    assert deltas == "Wrote todo.md."
    assert second[-1].response.output_text == "Wrote todo.md."
    _check_recorded(proxy)


def test_input_tokens_are_counted(tmp_path):
    async def count(proxy):
        async with httpx.AsyncClient() as http:
            body = {"model": "m", "input": "hello there"}
            return (await http.post(f"{proxy.url}/responses/input_tokens", json=body)).json()

    answer, proxy = behind_proxy(tmp_path, write_then_answer(), count)
    assert answer["object"] == "response.input_tokens" and answer["input_tokens"] > 0
    assert proxy.log.exchanges == []


def test_unknown_endpoint_and_malformed_request_get_openai_errors(tmp_path):
    async def errors(proxy):
        client = _client(proxy)
        with pytest.raises(openai.NotFoundError) as missing:
            await client.embeddings.create(model="m", input="x")
        with pytest.raises(openai.BadRequestError) as bad:
            await client.responses.create(model="m", input=[{"type": "function_call"}])
        await client.close()
        return missing.value, bad.value

    (missing, bad), proxy = behind_proxy(tmp_path, write_then_answer(), errors)
    assert missing.body["type"] == "not_found_error"
    assert "POST /v1/embeddings" in missing.body["message"]
    assert "/v1/responses" in missing.body["message"] and "/v1/messages" in missing.body["message"]
    assert bad.body["type"] == "invalid_request_error"
    assert "input[0].call_id" in bad.body["message"]
    assert proxy.log.exchanges == []


def test_codex_tool_kinds_are_offered_as_functions_and_custom_calls_answered_as_such():
    body = {
        "input": "go",
        "tools": [
            {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
            {
                "type": "namespace",
                "name": "agents",
                "tools": [{"type": "function", "name": "spawn"}],
            },
            {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}},
            {"type": "web_search"},
        ],
    }
    request = RESPONSES.parse(body)
    assert [t["function"]["name"] for t in request.tools] == [
        "exec_command",
        "spawn",
        "apply_patch",
    ]
    patch = "*** Begin Patch\n*** End Patch"
    completion = Completion(None, [ToolCall("c1", "apply_patch", {"input": patch}, None, None)])
    (item,) = RESPONSES.reply(completion, request)["output"]
    assert (item["type"], item["call_id"], item["input"]) == ("custom_tool_call", "c1", patch)
    history = {
        "input": [
            {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": patch},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
        ]
    }
    call, result = RESPONSES.parse(history).messages
    assert json.loads(call["tool_calls"][0]["function"]["arguments"]) == {"input": patch}
    assert result == {"role": "tool", "tool_call_id": "c1", "content": "ok"}


# -- translation round trips -------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
_name = st.from_regex(r"[a-z_]{1,10}", fullmatch=True)
_args = st.dictionaries(_name, st.one_of(_text, st.integers(), st.booleans()), max_size=3)


@st.composite
def _conversations(draw: Any) -> list[dict[str, Any]]:
    """Valid trialrun conversations: system, user turns, assistant turns with text and/or
    tool calls, each call answered by a tool message."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_text.filter(bool))})
    serial = 0
    for _ in range(draw(st.integers(1, 4))):
        messages.append({"role": "user", "content": draw(_text)})
        for _ in range(draw(st.integers(0, 2))):
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                serial += 1
                arguments = json.dumps(draw(_args))
                calls.append(
                    {
                        "id": f"call_{serial}",
                        "type": "function",
                        "function": {"name": draw(_name), "arguments": arguments},
                    }
                )
            messages.append(
                {
                    "role": "assistant",
                    "content": draw(st.one_of(st.none(), _text.filter(bool))),
                    "tool_calls": calls,
                }
            )
            for call in calls:
                messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": draw(_text)}
                )
        if draw(st.booleans()):
            messages.append({"role": "assistant", "content": draw(_text)})
    return messages


def _as_input(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A Responses request as Codex writes one from a conversation (the reference encoder)."""
    body: dict[str, Any] = {"input": []}
    for message in messages:
        role = message["role"]
        if role == "system":
            body["instructions"] = message["content"]
        elif role == "tool":
            body["input"].append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        else:
            if message["content"] is not None:
                kind = "output_text" if role == "assistant" else "input_text"
                body["input"].append(
                    {
                        "type": "message",
                        "role": role,
                        "content": [{"type": kind, "text": message["content"]}],
                    }
                )
            for call in message.get("tool_calls", []):
                body["input"].append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                    }
                )
    return body


@settings(max_examples=60, deadline=None)
@given(_conversations())
def test_any_conversation_survives_the_responses_request_translation(messages):
    parsed = RESPONSES.parse(_as_input(messages))
    expected = [{**m, "content": m["content"]} if m["role"] != "assistant" else m for m in messages]
    # an assistant turn with only text keeps it; one with calls keeps None when it had none
    assert parsed.messages == expected


_calls = st.lists(st.builds(lambda name, args: (name, args), _name, _args), max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.none(), _text.filter(bool)), _calls, st.booleans())
def test_any_completion_survives_the_responses_answer(text, calls, stream):
    completion = Completion(
        text,
        [ToolCall(f"call_{i}", n, a, None, json.dumps(a)) for i, (n, a) in enumerate(calls)],
        Usage(7, 2, 5),
    )
    request = WireRequest(messages=[], model="m")
    if stream:
        events = RESPONSES.events(completion, request)
        assert events[-1][0] == "response.completed"
        done = [data["item"] for name, data in events if name == "response.output_item.done"]
        assert done == events[-1][1]["response"]["output"]
        output = done
    else:
        output = RESPONSES.reply(completion, request)["output"]
    texts = [p["text"] for item in output if item["type"] == "message" for p in item["content"]]
    got = [
        (i["call_id"], i["name"], json.loads(i["arguments"]))
        for i in output
        if i["type"] == "function_call"
    ]
    assert ("".join(texts) or None) == text
    assert got == [(f"call_{i}", n, a) for i, (n, a) in enumerate(calls)]
