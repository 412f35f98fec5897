"""Anthropic Messages: `POST /v1/messages` (also `?beta=true`, what Claude Code speaks),
`POST /v1/messages/count_tokens`, `GET /v1/models` (with an `anthropic-version` header).

`system` (a string or text blocks) is the system message; a user turn's `tool_result`
blocks are tool messages (`is_error` kept as `is_error: true` on the message), then its
text blocks one user message; an assistant turn's text blocks are its content and its
`tool_use` blocks its tool calls. Thinking and image blocks are skipped: the model behind
never made them. Tools with an `input_schema` are offered as functions.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from trialrun.agents.wire._types import (
    Endpoint,
    Target,
    WireApi,
    WireRequest,
    as_float,
    as_int,
    estimated_tokens,
    function_tool,
    need,
)
from trialrun.core import Message
from trialrun.models import Completion

_STOP = {"length": "max_tokens", "max_tokens": "max_tokens"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
}


def match(target: Target) -> Endpoint | None:
    path = target.path.rstrip("/")
    if target.method == "POST" and path.endswith("/messages"):
        return Endpoint("complete")
    if target.method == "POST" and path.endswith("/messages/count_tokens"):
        return Endpoint("count")
    if target.method == "GET" and path == "/v1/models" and "anthropic-version" in target.headers:
        return Endpoint("models")
    return None


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    need(isinstance(content, list), where, "must be a string or a list of content blocks")
    for i, block in enumerate(content):
        need(isinstance(block, dict), f"{where}[{i}]", "a content block must be an object")
    blocks: list[dict[str, Any]] = content
    return blocks


def _text(blocks: list[dict[str, Any]], where: str) -> str | None:
    texts = []
    for i, block in enumerate(blocks):
        if block.get("type") == "text":
            need(isinstance(block.get("text"), str), f"{where}[{i}].text", "must be a string")
            texts.append(block["text"])
    return "\n\n".join(texts) if texts else None


def _user(messages: list[Message], blocks: list[dict[str, Any]], where: str) -> None:
    for i, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            continue
        call_id = block.get("tool_use_id")
        need(
            isinstance(call_id, str) and bool(call_id),
            f"{where}[{i}].tool_use_id",
            "must be a string",
        )
        inner = block.get("content", "")
        text = _text(_blocks(inner, f"{where}[{i}].content"), f"{where}[{i}].content") or ""
        message: Message = {"role": "tool", "tool_call_id": call_id, "content": text}
        if block.get("is_error") is True:
            message["is_error"] = True
        messages.append(message)
    said = _text(blocks, where)
    if said is not None:
        messages.append({"role": "user", "content": said})


def _assistant(messages: list[Message], blocks: list[dict[str, Any]], where: str) -> None:
    texts = [
        b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    message: Message = {"role": "assistant", "content": "".join(texts) if texts else None}
    calls = []
    for i, block in enumerate(blocks):
        if block.get("type") != "tool_use":
            continue
        call_id, name = block.get("id"), block.get("name")
        need(isinstance(call_id, str) and bool(call_id), f"{where}[{i}].id", "must be a string")
        need(isinstance(name, str) and bool(name), f"{where}[{i}].name", "must be a string")
        arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
        calls.append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        )
    if calls:
        message["tool_calls"] = calls
    messages.append(message)


def parse(body: Any) -> WireRequest:
    need(isinstance(body, dict), "body", "must be a JSON object")
    messages: list[Message] = []
    system = body.get("system")
    if system is not None:
        text = _text(_blocks(system, "system"), "system")
        if text:
            messages.append({"role": "system", "content": text})
    turns = body.get("messages")
    need(isinstance(turns, list), "messages", "must be a list of {role, content}")
    for i, turn in enumerate(turns):
        where = f"messages[{i}]"
        need(isinstance(turn, dict), where, "must be an object")
        role = turn.get("role")
        need(role in ("user", "assistant"), f"{where}.role", "must be user or assistant")
        blocks = _blocks(turn.get("content"), f"{where}.content")
        (_user if role == "user" else _assistant)(messages, blocks, f"{where}.content")
    raw_tools = body.get("tools") or []
    need(isinstance(raw_tools, list), "tools", "must be a list of tools")
    tools = []
    for i, tool in enumerate(raw_tools):
        need(isinstance(tool, dict), f"tools[{i}]", "a tool must be an object")
        if isinstance(tool.get("input_schema"), dict):
            tools.append(
                function_tool(
                    tool.get("name"), tool.get("description"), tool["input_schema"], f"tools[{i}]"
                )
            )
    return WireRequest(
        messages=messages,
        tools=tools,
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        stream=body.get("stream") is True,
        temperature=as_float(body.get("temperature")),
        max_tokens=as_int(body.get("max_tokens")),
    )


def _usage(completion: Completion) -> dict[str, Any]:
    used = completion.usage
    return {
        "input_tokens": max(0, used.prompt - used.cached),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": used.cached,
        "output_tokens": used.completion,
    }


def _content(completion: Completion) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if completion.text:
        blocks.append({"type": "text", "text": completion.text})
    for call in completion.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": call.arguments if isinstance(call.arguments, dict) else {},
            }
        )
    return blocks


def _stop(completion: Completion) -> str:
    if completion.tool_calls:
        return "tool_use"
    return _STOP.get(completion.finish_reason or "", "end_turn")


def _message(completion: Completion, request: WireRequest, content: list[Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": _stop(completion),
        "stop_sequence": None,
        "usage": _usage(completion),
    }


def reply(completion: Completion, request: WireRequest) -> dict[str, Any]:
    return _message(completion, request, _content(completion))


def events(completion: Completion, request: WireRequest) -> list[tuple[str | None, Any]]:
    start = _message(completion, request, [])
    start.update(stop_reason=None, usage={**_usage(completion), "output_tokens": 0})
    named: list[tuple[str, dict[str, Any]]] = [("message_start", {"message": start})]
    for index, block in enumerate(_content(completion)):
        empty: dict[str, Any]
        if block["type"] == "text":
            empty, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        else:
            empty = {**block, "input": {}}
            delta = {
                "type": "input_json_delta",
                "partial_json": json.dumps(block["input"], ensure_ascii=False),
            }
        named += [
            ("content_block_start", {"index": index, "content_block": empty}),
            ("content_block_delta", {"index": index, "delta": delta}),
            ("content_block_stop", {"index": index}),
        ]
    named += [
        (
            "message_delta",
            {
                "delta": {"stop_reason": _stop(completion), "stop_sequence": None},
                "usage": {"output_tokens": completion.usage.completion},
            },
        ),
        ("message_stop", {}),
    ]
    return [(name, {"type": name, **data}) for name, data in named]


def error(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def count(request: WireRequest) -> dict[str, Any]:
    return {"input_tokens": estimated_tokens(request)}


def models(model: str) -> dict[str, Any]:
    entry = {
        "type": "model",
        "id": model,
        "display_name": model,
        "created_at": "2025-01-01T00:00:00Z",
    }
    return {"data": [entry], "has_more": False, "first_id": model, "last_id": model}


ANTHROPIC = WireApi(
    name="anthropic",
    serves="POST /v1/messages, POST /v1/messages/count_tokens",
    match=match,
    parse=parse,
    reply=reply,
    events=events,
    error=error,
    count=count,
    models=models,
)
