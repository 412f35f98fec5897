"""Anthropic Messages through the recording proxy, talked to with plain httpx as Claude
Code talks: `POST /v1/messages?beta=true`, streamed and not."""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_support import WRITE, behind_proxy, sse_events, write_then_answer

from trialrun.agents.command import run_from_traffic
from trialrun.agents.wire import WireRequest, wire_api
from trialrun.models import Completion, ToolCall, Usage
from trialrun.models.anthropic import from_anthropic, to_anthropic

ANTHROPIC = wire_api("anthropic")
HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "trialrun"}
TOOLS = [
    {
        "name": "write_file",
        "description": "Write a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]


def _message_from_events(events: list[tuple[str | None, Any]]) -> dict[str, Any]:
    """The message a streaming client assembles from the events."""
    message: dict[str, Any] = {}
    partial: dict[int, str] = {}
    for name, data in events:
        assert name == data["type"]
        if name == "message_start":
            message = data["message"]
        elif name == "content_block_start":
            message["content"].append(data["content_block"])
        elif name == "content_block_delta":
            block, delta = message["content"][data["index"]], data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "content_block_stop" and data["index"] in partial:
            message["content"][data["index"]]["input"] = json.loads(partial[data["index"]])
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"].update(data["usage"])
    assert events[-1][0] == "message_stop"
    return message


async def _round_trip(proxy: Any, stream: bool) -> list[dict[str, Any]]:
    """Claude Code's loop: ask, run the tool_use, send its tool_result, ask again."""
    history: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Do it"}]}
    ]
    answers = []
    async with httpx.AsyncClient(base_url=proxy.root_url, headers=HEADERS) as http:
        for _ in range(2):
            body = {
                "model": "claude-x",
                "max_tokens": 100,
                "system": [{"type": "text", "text": "Be brief."}],
                "messages": history,
                "tools": TOOLS,
                "stream": stream,
            }
            answer = await http.post("/v1/messages?beta=true", json=body)
            assert answer.status_code == 200
            if stream:
                assert answer.headers["content-type"] == "text/event-stream"
                message = _message_from_events(sse_events(answer.text))
            else:
                message = answer.json()
            answers.append(message)
            history.append({"role": "assistant", "content": message["content"]})
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": b["id"],
                    "content": [{"type": "text", "text": "written"}],
                }
                for b in message["content"]
                if b["type"] == "tool_use"
            ]
            if results:
                history.append({"role": "user", "content": results})
    return answers


def _check(answers: list[dict[str, Any]], proxy: Any) -> None:
    first, second = answers
    assert first["stop_reason"] == "tool_use"
    assert first["content"] == [
        {"type": "tool_use", "id": "call_0_0", "name": "write_file", "input": WRITE["arguments"]}
    ]
    assert first["usage"]["input_tokens"] == 20 and first["usage"]["cache_read_input_tokens"] == 10
    assert second["content"] == [{"type": "text", "text": "Wrote todo.md."}]
    assert second["stop_reason"] == "end_turn"
    assert [e.api for e in proxy.log.exchanges] == ["anthropic", "anthropic"]
    assert proxy.log.exchanges[1].messages[0] == {"role": "system", "content": "Be brief."}
    run = run_from_traffic(proxy.log, "Wrote todo.md.", "Do it")
    assert [(c.name, c.arguments, c.result, c.ok) for c in run.tool_calls] == [
        ("write_file", WRITE["arguments"], "written", True)
    ]
    assert (run.turns, run.usage.completion) == (2, 13)


def test_tool_use_round_trip_without_streaming(tmp_path):
    answers, proxy = behind_proxy(tmp_path, write_then_answer(), lambda p: _round_trip(p, False))
    assert answers[0]["type"] == "message" and answers[0]["role"] == "assistant"
    _check(answers, proxy)


def test_tool_use_round_trip_streamed_as_message_start_to_message_stop(tmp_path):
    answers, proxy = behind_proxy(tmp_path, write_then_answer(), lambda p: _round_trip(p, True))
    _check(answers, proxy)


def test_a_tool_result_marked_is_error_is_a_failed_call_in_the_transcript(tmp_path):
    async def failing(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url, headers=HEADERS) as http:
            history = [{"role": "user", "content": "Do it"}]
            body = {"model": "c", "max_tokens": 9, "messages": history, "tools": TOOLS}
            first = (await http.post("/v1/messages", json=body)).json()
            history += [
                {"role": "assistant", "content": first["content"]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "is_error": True,
                            "tool_use_id": "call_0_0",
                            "content": "disk full",
                        }
                    ],
                },
            ]
            await http.post("/v1/messages", json=body)

    _, proxy = behind_proxy(tmp_path, write_then_answer(), failing)
    run = run_from_traffic(proxy.log, "", "Do it")
    assert [(c.name, c.result, c.ok) for c in run.tool_calls] == [
        ("write_file", "disk full", False)
    ]


def test_count_tokens_models_unknown_endpoint_and_malformed_request(tmp_path):
    async def calls(proxy):
        async with httpx.AsyncClient(base_url=proxy.root_url, headers=HEADERS) as http:
            body = {"model": "c", "messages": [{"role": "user", "content": "hello"}]}
            return (
                await http.post("/v1/messages/count_tokens?beta=true", json=body),
                await http.get("/v1/models"),
                await http.post("/v1/complete", json=body),
                await http.post("/v1/messages", json={"model": "c", "messages": "hi"}),
                await http.post("/v1/messages", content=b"{not json"),
            )

    (count, models, unknown, bad, garbled), proxy = behind_proxy(tmp_path, [], calls)
    assert count.status_code == 200 and count.json()["input_tokens"] > 0
    assert models.json()["data"][0]["type"] == "model"
    assert unknown.status_code == 404
    error = unknown.json()
    assert error["type"] == "error" and error["error"]["type"] == "not_found_error"
    assert "POST /v1/complete" in error["error"]["message"]
    assert "/v1/messages" in error["error"]["message"]
    for answer, where in ((bad, "messages: must be a list"), (garbled, "bad anthropic request")):
        assert answer.status_code == 400
        assert answer.json()["error"]["type"] == "invalid_request_error"
        assert where in answer.json()["error"]["message"]
    assert proxy.log.exchanges == []


# -- translation round trips, against trialrun's own Anthropic client ------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20)
_name = st.from_regex(r"[a-z_]{1,10}", fullmatch=True)
_args = st.dictionaries(_name, st.one_of(_text, st.integers(), st.booleans()), max_size=3)


@st.composite
def _conversations(draw: Any) -> list[dict[str, Any]]:
    """Valid trialrun conversations that alternate user and assistant turns, as the
    Messages API requires (tool results and the next user text share a user turn)."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_text)})
    messages.append({"role": "user", "content": draw(_text)})
    serial = 0
    for _ in range(draw(st.integers(0, 3))):
        calls = []
        for _ in range(draw(st.integers(1, 2))):
            serial += 1
            arguments = json.dumps(draw(_args))
            calls.append(
                {
                    "id": f"toolu_{serial}",
                    "type": "function",
                    "function": {"name": draw(_name), "arguments": arguments},
                }
            )
        text = draw(st.one_of(st.none(), _text))
        messages.append({"role": "assistant", "content": text, "tool_calls": calls})
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": draw(_text)} for c in calls
        ]
        if draw(st.booleans()):
            messages.append({"role": "user", "content": draw(_text)})
    if messages[-1]["role"] == "user" and draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(_text)})
    return messages


@settings(max_examples=60, deadline=None)
@given(_conversations())
def test_any_conversation_survives_the_messages_request_translation(messages):
    system, turns = to_anthropic(messages)
    body = {"model": "c", "max_tokens": 5, "messages": turns}
    if system:
        body["system"] = system
    assert _parsed_arguments(ANTHROPIC.parse(body).messages) == _parsed_arguments(messages)


def _parsed_arguments(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with each call's arguments as a JSON value (the text's escapes vary)."""
    out = []
    for message in messages:
        calls = [
            {
                **c,
                "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])},
            }
            for c in message.get("tool_calls", [])
        ]
        out.append({**message, "tool_calls": calls} if calls else message)
    return out


_calls = st.lists(st.tuples(_name, _args), max_size=3)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.none(), _text), _calls, st.booleans())
def test_any_completion_survives_the_messages_answer(text, calls, stream):
    completion = Completion(
        text,
        [ToolCall(f"toolu_{i}", n, a, None, json.dumps(a)) for i, (n, a) in enumerate(calls)],
        Usage(9, 3, 5),
    )
    request = WireRequest(messages=[], model="c")
    if stream:
        message = _message_from_events(ANTHROPIC.events(completion, request))
    else:
        message = ANTHROPIC.reply(completion, request)
    back = from_anthropic(message)
    assert back.text == text
    assert [(c.id, c.name, c.arguments) for c in back.tool_calls] == [
        (f"toolu_{i}", n, a) for i, (n, a) in enumerate(calls)
    ]
    assert (back.usage.prompt, back.usage.cached, back.usage.completion) == (9, 3, 5)
