"""OpenAI Responses: `POST /v1/responses` (what Codex speaks), `POST /v1/responses/input_tokens`.

Input items become trialrun messages: `instructions` and system/developer messages are
system messages; user and assistant messages keep their text parts' text; a
`function_call` joins the assistant message before it (or starts one) as a tool call with
its `call_id`; a `function_call_output` is a tool message. `custom` tools (free-text
input, e.g. Codex's apply_patch) are offered to the model as functions taking
`{"input": "…"}` and answered as `custom_tool_call`s; a `namespace`'s functions are
offered by their own names; hosted tools (web_search) are not offered. Reasoning items
are skipped (the model behind never made them).

A streamed answer is the `response.*` events Codex reads: created, in_progress, per
output item added / deltas / done, and `response.completed` with the usage.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from trialrun.agents.wire._chat import error, models
from trialrun.agents.wire._types import (
    Endpoint,
    Target,
    WireApi,
    WireRequest,
    arguments_text,
    as_float,
    as_int,
    estimated_tokens,
    function_tool,
    need,
)
from trialrun.core import Message, ToolSpec
from trialrun.models import Completion, ToolCall

_TEXT_PARTS = ("input_text", "output_text", "text", "refusal")
_CUSTOM_INPUT = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
}


def match(target: Target) -> Endpoint | None:
    path = target.path.rstrip("/")
    if target.method != "POST":
        return None
    if path.endswith("/responses"):
        return Endpoint("complete")
    if path.endswith("/responses/input_tokens"):
        return Endpoint("count")
    return None


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    need(isinstance(content, list), where, "must be a string or a list of content parts")
    texts = []
    for i, part in enumerate(content):
        need(isinstance(part, dict), f"{where}[{i}]", "a content part must be an object")
        if part.get("type") in _TEXT_PARTS:
            text = part.get("text", part.get("refusal"))
            need(isinstance(text, str), f"{where}[{i}].text", "must be a string")
            texts.append(text)
    return "\n\n".join(texts)


def _open_assistant(messages: list[Message]) -> Message:
    """The assistant message a function call joins: the last one, unless a tool result or
    another turn came after it."""
    if messages and messages[-1].get("role") == "assistant":
        return messages[-1]
    message: Message = {"role": "assistant", "content": None}
    messages.append(message)
    return message


def _item(messages: list[Message], item: Any, where: str) -> None:
    need(isinstance(item, dict), where, "an input item must be an object")
    kind = item.get("type", "message" if "role" in item else None)
    if kind == "message":
        role = item.get("role")
        need(
            role in ("user", "assistant", "system", "developer"),
            f"{where}.role",
            "must be user, assistant, system or developer",
        )
        text = _text(item.get("content"), f"{where}.content")
        if role == "assistant":
            last = messages[-1] if messages else None
            if last is not None and last.get("role") == "assistant" and not last.get("tool_calls"):
                last["content"] = (last.get("content") or "") + text
            else:
                messages.append({"role": "assistant", "content": text})
        else:
            messages.append({"role": "system" if role == "developer" else role, "content": text})
    elif kind in ("function_call", "custom_tool_call"):
        call_id, name = item.get("call_id"), item.get("name")
        need(isinstance(call_id, str) and bool(call_id), f"{where}.call_id", "must be a string")
        need(isinstance(name, str) and bool(name), f"{where}.name", "must be a string")
        if kind == "function_call":
            arguments = arguments_text(item.get("arguments"))
        else:
            arguments = arguments_text({"input": item.get("input", "")})
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        _open_assistant(messages).setdefault("tool_calls", []).append(call)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        call_id = item.get("call_id")
        need(isinstance(call_id, str) and bool(call_id), f"{where}.call_id", "must be a string")
        output = _text(item.get("output", ""), f"{where}.output")
        messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
    # reasoning, web search and other items the model behind never made: skipped


def _tools(raw: Any) -> tuple[list[ToolSpec], list[str]]:
    need(raw is None or isinstance(raw, list), "tools", "must be a list of tools")
    tools: list[ToolSpec] = []
    custom: list[str] = []
    for i, tool in enumerate(raw or []):
        need(isinstance(tool, dict), f"tools[{i}]", "a tool must be an object")
        kind = tool.get("type")
        if kind == "function":
            tools.append(
                function_tool(
                    tool.get("name"), tool.get("description"), tool.get("parameters"), f"tools[{i}]"
                )
            )
        elif kind == "namespace":  # a group of functions (Codex's sub-agent tools)
            inner, inner_custom = _tools(tool.get("tools"))
            tools += inner
            custom += inner_custom
        elif kind == "custom":
            tools.append(
                function_tool(
                    tool.get("name"), tool.get("description"), _CUSTOM_INPUT, f"tools[{i}]"
                )
            )
            custom.append(tool["name"])
    return tools, custom


def parse(body: Any) -> WireRequest:
    need(isinstance(body, dict), "body", "must be a JSON object")
    messages: list[Message] = []
    instructions = body.get("instructions")
    need(instructions is None or isinstance(instructions, str), "instructions", "must be a string")
    if instructions:
        messages.append({"role": "system", "content": instructions})
    items = body.get("input")
    if isinstance(items, str):
        messages.append({"role": "user", "content": items})
    else:
        need(isinstance(items, list), "input", "must be a string or a list of input items")
        for i, item in enumerate(items):
            _item(messages, item, f"input[{i}]")
    tools, custom = _tools(body.get("tools"))
    return WireRequest(
        messages=messages,
        tools=tools,
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        stream=body.get("stream") is True,
        temperature=as_float(body.get("temperature")),
        max_tokens=as_int(body.get("max_output_tokens")),
        extras={"custom_tools": custom},
    )


def _usage(completion: Completion) -> dict[str, Any]:
    used = completion.usage
    return {
        "input_tokens": used.prompt,
        "input_tokens_details": {"cached_tokens": used.cached},
        "output_tokens": used.completion,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": used.prompt + used.completion,
    }


def _call_item(call: ToolCall, custom: bool) -> dict[str, Any]:
    if custom:
        value = call.arguments.get("input") if isinstance(call.arguments, dict) else None
        text = value if isinstance(value, str) else arguments_text(call.raw_arguments or {})
        return {
            "type": "custom_tool_call",
            "id": f"ctc_{uuid.uuid4().hex}",
            "status": "completed",
            "call_id": call.id,
            "name": call.name,
            "input": text,
        }
    arguments = (
        call.raw_arguments if call.raw_arguments is not None else arguments_text(call.arguments)
    )
    return {
        "type": "function_call",
        "id": f"fc_{uuid.uuid4().hex}",
        "status": "completed",
        "call_id": call.id,
        "name": call.name,
        "arguments": arguments,
    }


def _output(completion: Completion, request: WireRequest) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if completion.text:
        part = {"type": "output_text", "text": completion.text, "annotations": []}
        items.append(
            {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    custom = set(request.extras.get("custom_tools") or ())
    items.extend(_call_item(call, call.name in custom) for call in completion.tool_calls)
    return items


def _response(completion: Completion, request: WireRequest, output: list[Any]) -> dict[str, Any]:
    incomplete = completion.finish_reason == "length" and not completion.tool_calls
    return {
        "id": f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": request.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": _usage(completion),
    }


def reply(completion: Completion, request: WireRequest) -> dict[str, Any]:
    return _response(completion, request, _output(completion, request))


def _item_events(index: int, item: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    at = {"output_index": index}
    ref = {"item_id": item["id"], "output_index": index}
    kind = item["type"]
    if kind == "message":
        part = item["content"][0]
        empty = {**part, "text": ""}
        return [
            (
                "response.output_item.added",
                {**at, "item": {**item, "status": "in_progress", "content": []}},
            ),
            ("response.content_part.added", {**ref, "content_index": 0, "part": empty}),
            ("response.output_text.delta", {**ref, "content_index": 0, "delta": part["text"]}),
            ("response.output_text.done", {**ref, "content_index": 0, "text": part["text"]}),
            ("response.content_part.done", {**ref, "content_index": 0, "part": part}),
            ("response.output_item.done", {**at, "item": item}),
        ]
    if kind == "function_call":
        args = item["arguments"]
        return [
            (
                "response.output_item.added",
                {**at, "item": {**item, "status": "in_progress", "arguments": ""}},
            ),
            ("response.function_call_arguments.delta", {**ref, "delta": args}),
            (
                "response.function_call_arguments.done",
                {**ref, "name": item["name"], "arguments": args},
            ),
            ("response.output_item.done", {**at, "item": item}),
        ]
    text = item["input"]
    return [
        (
            "response.output_item.added",
            {**at, "item": {**item, "status": "in_progress", "input": ""}},
        ),
        ("response.custom_tool_call_input.delta", {**ref, "delta": text}),
        ("response.custom_tool_call_input.done", {**ref, "input": text}),
        ("response.output_item.done", {**at, "item": item}),
    ]


def events(completion: Completion, request: WireRequest) -> list[tuple[str | None, Any]]:
    output = _output(completion, request)
    final = _response(completion, request, output)
    started = {**final, "status": "in_progress", "output": [], "usage": None}
    named: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": started}),
        ("response.in_progress", {"response": started}),
    ]
    for index, item in enumerate(output):
        named.extend(_item_events(index, item))
    named.append(("response.completed", {"response": final}))
    return [
        (name, {"type": name, "sequence_number": i, **data}) for i, (name, data) in enumerate(named)
    ]


def count(request: WireRequest) -> dict[str, Any]:
    return {"object": "response.input_tokens", "input_tokens": estimated_tokens(request)}


RESPONSES = WireApi(
    name="responses",
    serves="POST /v1/responses, POST /v1/responses/input_tokens",
    match=match,
    parse=parse,
    reply=reply,
    events=events,
    error=error,
    count=count,
    models=models,
)
