"""Constrained actions for small local models.

Tiny models rarely produce a usable native tool call, but under a JSON-schema grammar of
the allowed actions they pick sensible ones. Each turn the model emits exactly one
action: `{"tool": NAME, "arguments": {...}}` for one of the task's tools, or
`{"tool": "final_answer", "answer": "..."}`. The chat history (tool calls and results)
is rewritten in that same format so the model sees its own earlier actions.
"""

from __future__ import annotations

import json
from typing import Any

from trialrun.models._tool_calls import parse_arguments
from trialrun.models._types import Completion, Message, ToolCall, ToolSpec

FINAL = "final_answer"
MAX_TOOL_RESULT_CHARS = 2000

ACTION_PROMPT = """\
Reply with exactly one JSON object, nothing else.
To call a tool: {{"tool": "<tool name>", "arguments": {{...}}}}
When the work is done: {{"tool": "final_answer", "answer": "<your reply to the user>"}}

Tools:
{tools}"""

_GRAMMAR_KEYS = {
    "type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf",
    "additionalProperties", "minItems", "maxItems", "minLength", "maxLength", "pattern",
}  # fmt: skip


def _functions(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [spec.get("function", spec) for spec in tools]


def grammar_schema(schema: Any) -> Any:
    """A parameters schema reduced to what llama.cpp's schema-to-grammar converter handles."""
    if isinstance(schema, list):
        return [grammar_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _GRAMMAR_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: grammar_schema(sub) for name, sub in value.items()}
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = grammar_schema(value)
        else:
            out[key] = grammar_schema(value)
    return out


def action_schema(tools: list[ToolSpec]) -> dict[str, Any]:
    """`anyOf` of one object per tool plus the final answer; "tool" always comes first."""
    options: list[dict[str, Any]] = []
    for function in _functions(tools):
        params = grammar_schema(function.get("parameters") or {"type": "object"})
        params.setdefault("type", "object")
        if params.get("type") == "object" and "properties" in params:
            params.setdefault("additionalProperties", False)
        options.append(
            {
                "type": "object",
                "properties": {"tool": {"const": function["name"]}, "arguments": params},
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        )
    options.append(
        {
            "type": "object",
            "properties": {"tool": {"const": FINAL}, "answer": {"type": "string"}},
            "required": ["tool", "answer"],
            "additionalProperties": False,
        }
    )
    return {"anyOf": options}


def describe_tools(tools: list[ToolSpec]) -> str:
    lines = []
    for function in _functions(tools):
        params = function.get("parameters") or {}
        required = set(params.get("required") or [])
        args = []
        for name, schema in (params.get("properties") or {}).items():
            kind = schema.get("type", "any") if isinstance(schema, dict) else "any"
            optional = "" if name in required else ", optional"
            args.append(f"{name} ({kind}{optional})")
        signature = ", ".join(args) or "no arguments"
        lines.append(
            f"- {function['name']}: {function.get('description', '').strip()} "
            f"Arguments: {signature}."
        )
    return "\n".join(lines)


def _action_text(name: str, arguments: Any) -> str:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            arguments = {}
    return json.dumps({"tool": name, "arguments": arguments or {}}, ensure_ascii=False)


def action_messages(messages: list[Message], tools: list[ToolSpec]) -> list[Message]:
    """The history as plain system/user/assistant turns in the action format."""
    system_parts = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    system_parts.append(ACTION_PROMPT.format(tools=describe_tools(tools)))
    out: list[Message] = [{"role": "system", "content": "\n\n".join(p for p in system_parts if p)}]
    names: dict[str, str] = {}
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "system":
            continue
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if calls:
                texts = []
                for call in calls:
                    function = call.get("function") or {}
                    names[call.get("id") or ""] = function.get("name", "")
                    texts.append(_action_text(function.get("name", ""), function.get("arguments")))
                out.append({"role": "assistant", "content": "\n".join(texts)})
            else:
                answer = {"tool": FINAL, "answer": str(content or "")}
                out.append({"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)})
        elif role == "tool":
            name = message.get("name") or names.get(message.get("tool_call_id") or "", "tool")
            body = str(content or "")
            if len(body) > MAX_TOOL_RESULT_CHARS:
                body = body[:MAX_TOOL_RESULT_CHARS] + "\n[… truncated]"
            out.append({"role": "user", "content": f"Result of {name}:\n{body}"})
        else:
            out.append({"role": "user", "content": str(content or "")})
    return out


def parse_action(text: str, call_id: str) -> Completion:
    """A Completion from the model's action JSON (tool call or final text)."""
    try:
        action = json.loads(text)
    except json.JSONDecodeError:
        return Completion(text=text.strip(), finish_reason="length")
    if not isinstance(action, dict):
        return Completion(text=text.strip())
    name = action.get("tool")
    if name == FINAL or name is None:
        answer = action.get("answer", "")
        return Completion(text=answer if isinstance(answer, str) else json.dumps(answer))
    call: ToolCall = parse_arguments(call_id, str(name), action.get("arguments", {}))
    call.raw_arguments = json.dumps(action.get("arguments", {}), ensure_ascii=False)
    return Completion(text=None, tool_calls=[call], finish_reason="tool_calls")
