"""Parsing tool-call arguments and cleaning chat messages, shared by the provider clients."""

from __future__ import annotations

import json
from typing import Any

from trialrun.models._types import Message, ToolCall

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


def clean_messages(messages: list[Message]) -> list[Message]:
    """OpenAI chat messages with only the keys the API accepts (transcript extras dropped)."""
    out: list[Message] = []
    for message in messages:
        clean = {k: v for k, v in message.items() if k in _MESSAGE_KEYS}
        if clean.get("role") != "tool":
            clean.pop("tool_call_id", None)
            if clean.get("role") != "user":
                clean.pop("name", None)
        if clean.get("role") == "assistant" and clean.get("tool_calls"):
            clean["tool_calls"] = [_clean_call(c) for c in clean["tool_calls"]]
        elif "tool_calls" in clean:
            clean.pop("tool_calls")
        out.append(clean)
    return out


def _clean_call(call: dict[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or {})
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {})
    return {
        "id": call.get("id") or "",
        "type": "function",
        "function": {"name": function.get("name", ""), "arguments": arguments},
    }
