"""Parsing tool-call arguments and cleaning chat messages, shared by the provider clients."""

from __future__ import annotations

import json
from typing import Any

from trialrun.models._types import Completion, Message, ToolCall

_MESSAGE_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name"}


def parse_arguments(call_id: str, name: str, raw: Any) -> ToolCall:
    """A ToolCall from raw arguments; bad JSON is recorded in `arguments_error`, not raised."""
    if isinstance(raw, dict):
        return ToolCall(call_id, name, raw, None, json.dumps(raw))
    text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
    if not text.strip():
        return ToolCall(call_id, name, {}, None, text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return ToolCall(call_id, name, {}, f"arguments are not valid JSON ({exc.msg})", text)
    if not isinstance(value, dict):
        return ToolCall(
            call_id, name, {}, f"arguments must be a JSON object, got {type(value).__name__}", text
        )
    return ToolCall(call_id, name, value, None, text)


def assistant_message(completion: Completion) -> Message:
    """The assistant message an agent keeps in its history for one answer: OpenAI's shape,
    plus each `extra_content` the provider asked to get back (Gemini's thought signatures,
    on the message and on its tool calls; never altered). Providers that did not produce
    it never send it (`clean_messages` drops it unless told to keep it)."""
    message: Message = {"role": "assistant", "content": completion.text}
    if completion.extra_content is not None:
        message["extra_content"] = completion.extra_content
    if completion.tool_calls:
        message["tool_calls"] = [_call_message(call) for call in completion.tool_calls]
    return message


def _call_message(call: ToolCall) -> dict[str, Any]:
    arguments = call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments)
    out: dict[str, Any] = {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }
    if call.extra_content is not None:
        out["extra_content"] = call.extra_content
    return out


def clean_messages(messages: list[Message], *, keep_extra: bool = False) -> list[Message]:
    """OpenAI chat messages with only the keys the API accepts (transcript extras dropped).

    `keep_extra`: an assistant message's `extra_content` and its tool calls' (a JSON
    object each, as the server sent it) go back unchanged, for a server that sends them
    (Gemini's OpenAI-compatible API); they are never added where the history has none."""
    out: list[Message] = []
    for message in messages:
        clean = {k: v for k, v in message.items() if k in _MESSAGE_KEYS}
        if clean.get("role") != "tool":
            clean.pop("tool_call_id", None)
            if clean.get("role") != "user":
                clean.pop("name", None)
        if clean.get("role") == "assistant":
            if keep_extra and isinstance(message.get("extra_content"), dict):
                clean["extra_content"] = message["extra_content"]
            if clean.get("tool_calls"):
                clean["tool_calls"] = [_clean_call(c, keep_extra) for c in clean["tool_calls"]]
            else:
                clean.pop("tool_calls", None)
        elif "tool_calls" in clean:
            clean.pop("tool_calls")
        out.append(clean)
    return out


def _clean_call(call: dict[str, Any], keep_extra: bool = False) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {})
    out: dict[str, Any] = {
        "id": call.get("id") or "",
        "type": "function",
        "function": {"name": function.get("name", ""), "arguments": arguments},
    }
    if keep_extra and isinstance(call.get("extra_content"), dict):
        out["extra_content"] = call["extra_content"]
    return out


def extra_content(holder: dict[str, Any]) -> dict[str, Any] | None:
    """A response's `extra_content` on a message or tool call: a JSON object, kept as it
    came (None when absent or not an object)."""
    extra = holder.get("extra_content")
    return extra if isinstance(extra, dict) else None
