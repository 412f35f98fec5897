"""Gemini: `POST /v1beta/models/M:generateContent`, `:streamGenerateContent` (`?alt=sse`:
SSE, else a JSON array), `:countTokens`, `GET /v1beta/models` (what gemini-cli speaks).

`systemInstruction` is the system message; a `model` turn's text parts are its content
and its `functionCall` parts its tool calls (the call's `id`, else one made from its
place); a `user` turn's `functionResponse` parts are tool messages (paired by `id`, else
with the oldest unanswered call of that name), then its text parts one user message.
A response `{"output": text}` or `{"result": text}` is that text; `{"error": …}` is a
failed result (`is_error: true`); any other is its JSON.

Thought signatures travel as trialrun keeps them (see `trialrun.models.gemini`):
`extra_content: {"google": {"thought_signature": …}}` on a call or on the message for
its text (`{"google": {"text_parts": […]}}` for several text parts), and go back on
their parts unchanged.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

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
from trialrun.models import Completion

_ROUTE = re.compile(
    r"^/(?:v1|v1beta|v1alpha)/(?:models|tunedModels)/([^:]+):"
    r"(generateContent|streamGenerateContent|countTokens)$"
)
_FINISH = {"length": "MAX_TOKENS", "max_tokens": "MAX_TOKENS", "content_filter": "SAFETY"}
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def match(target: Target) -> Endpoint | None:
    found = _ROUTE.match(target.path)
    if found and target.method == "POST":
        model, method = found.group(1), found.group(2)
        if method == "countTokens":
            return Endpoint("count", model=model)
        stream = method == "streamGenerateContent"
        return Endpoint(
            "complete", stream=stream, model=model, sse=target.query.get("alt") == "sse"
        )
    if target.method == "GET" and re.match(r"^/(?:v1beta|v1alpha)/models/?$", target.path):
        return Endpoint("models")
    return None


def _signature(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _google(signature: str) -> dict[str, Any]:
    return {"google": {"thought_signature": signature}}


def _model_turn(
    messages: list[Message], parts: list[dict[str, Any]], where: str, pending: list[list[str]]
) -> None:
    texts: list[dict[str, Any]] = []
    calls = []
    for i, part in enumerate(parts):
        signature = _signature(part.get("thoughtSignature"))
        call = part.get("functionCall")
        if part.get("thought") is True:
            continue
        if isinstance(call, dict):
            name = call.get("name")
            need(
                isinstance(name, str) and bool(name),
                f"{where}[{i}].functionCall.name",
                "must be a string",
            )
            call_id = call.get("id") if isinstance(call.get("id"), str) and call["id"] else None
            call_id = call_id or f"{name}_{len(messages)}_{i}"
            entry = {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments_text(call.get("args") or {})},
            }
            if signature is not None:
                entry["extra_content"] = _google(signature)
            calls.append(entry)
            pending.append([str(name), call_id])  # a non-empty string: checked above
        elif isinstance(part.get("text"), str):
            texts.append(
                {"text": part["text"], **({"thoughtSignature": signature} if signature else {})}
            )
    text = "".join(p["text"] for p in texts)
    message: Message = {"role": "assistant", "content": text or None}
    signed = [p for p in texts if "thoughtSignature" in p]
    if len(texts) == 1 and signed:
        message["extra_content"] = _google(signed[0]["thoughtSignature"])
    elif signed:
        message["extra_content"] = {"google": {"text_parts": texts}}
    if calls:
        message["tool_calls"] = calls
    messages.append(message)


def _result(response: Any) -> tuple[str, bool]:
    if isinstance(response, dict) and len(response) == 1:
        ((key, value),) = response.items()
        if key in ("output", "result") and isinstance(value, str):
            return value, False
        if key == "error":
            return (
                value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            ), True
    if isinstance(response, dict) and "error" in response and "output" not in response:
        return json.dumps(response, ensure_ascii=False), True
    return json.dumps(response, ensure_ascii=False), False


def _user_turn(
    messages: list[Message], parts: list[dict[str, Any]], where: str, pending: list[list[str]]
) -> None:
    texts = []
    for i, part in enumerate(parts):
        answer = part.get("functionResponse")
        if isinstance(answer, dict):
            name = answer.get("name")
            need(isinstance(name, str), f"{where}[{i}].functionResponse.name", "must be a string")
            call_id = (
                answer.get("id") if isinstance(answer.get("id"), str) and answer["id"] else None
            )
            waiting = [p for p in pending if (p[1] == call_id if call_id else p[0] == name)]
            if waiting:
                pending.remove(waiting[0])
                call_id = waiting[0][1]
            content, failed = _result(answer.get("response"))
            message: Message = {
                "role": "tool",
                "tool_call_id": call_id or f"{name}_{i}",
                "name": name,
                "content": content,
            }
            if failed:
                message["is_error"] = True
            messages.append(message)
        elif isinstance(part.get("text"), str) and part.get("thought") is not True:
            texts.append(part["text"])
    if texts:
        messages.append({"role": "user", "content": "\n\n".join(texts)})


def _tools(raw: Any) -> list[ToolSpec]:
    need(raw is None or isinstance(raw, list), "tools", "must be a list of {functionDeclarations}")
    tools = []
    for i, group in enumerate(raw or []):
        need(isinstance(group, dict), f"tools[{i}]", "must be an object")
        declarations = group.get("functionDeclarations") or group.get("function_declarations") or []
        need(isinstance(declarations, list), f"tools[{i}].functionDeclarations", "must be a list")
        for j, declaration in enumerate(declarations):
            where = f"tools[{i}].functionDeclarations[{j}]"
            need(isinstance(declaration, dict), where, "must be an object")
            schema = declaration.get("parametersJsonSchema", declaration.get("parameters"))
            tools.append(
                function_tool(
                    declaration.get("name"), declaration.get("description"), schema, where
                )
            )
    return tools


def parse(body: Any) -> WireRequest:
    need(isinstance(body, dict), "body", "must be a JSON object")
    if isinstance(body.get("generateContentRequest"), dict):  # countTokens' other form
        body = body["generateContentRequest"]
    messages: list[Message] = []
    system = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(system, str):
        system = {"parts": [{"text": system}]}
    if system is not None:
        need(
            isinstance(system, dict) and isinstance(system.get("parts", []), list),
            "systemInstruction",
            "must be {parts: [{text}]}",
        )
        text = "\n\n".join(
            p["text"]
            for p in system.get("parts", [])
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
        if text:
            messages.append({"role": "system", "content": text})
    contents = body.get("contents")
    need(isinstance(contents, list), "contents", "must be a list of {role, parts}")
    pending: list[list[str]] = []  # [name, id] of calls not answered yet
    for i, content in enumerate(contents):
        where = f"contents[{i}]"
        need(isinstance(content, dict), where, "must be an object")
        role = content.get("role", "user")
        need(role in ("user", "model", "function"), f"{where}.role", "must be user or model")
        parts = content.get("parts")
        need(
            isinstance(parts, list) and all(isinstance(p, dict) for p in parts),
            f"{where}.parts",
            "must be a list of part objects",
        )
        turn = _model_turn if role == "model" else _user_turn
        turn(messages, parts, f"{where}.parts", pending)
    config = body.get("generationConfig") or {}
    need(isinstance(config, dict), "generationConfig", "must be an object")
    return WireRequest(
        messages=messages,
        tools=_tools(body.get("tools")),
        temperature=as_float(config.get("temperature")),
        max_tokens=as_int(config.get("maxOutputTokens")),
        seed=as_int(config.get("seed")),
    )


def _parts(completion: Completion) -> list[dict[str, Any]]:
    extra = completion.extra_content or {}
    google = obj if isinstance(obj := extra.get("google"), dict) else {}
    kept = google.get("text_parts")
    parts: list[dict[str, Any]]
    if isinstance(kept, list) and "".join(
        str(p.get("text", "")) for p in kept if isinstance(p, dict)
    ) == (completion.text or ""):
        parts = [dict(p) for p in kept if isinstance(p, dict)]
    else:
        signature = _signature(google.get("thought_signature"))
        parts = []
        if completion.text or signature:
            parts.append({"text": completion.text or ""})
            if signature:
                parts[0]["thoughtSignature"] = signature
    for call in completion.tool_calls:
        part: dict[str, Any] = {
            "functionCall": {"id": call.id, "name": call.name, "args": call.arguments}
        }
        call_google = (call.extra_content or {}).get("google")
        signature = (
            _signature(call_google.get("thought_signature"))
            if isinstance(call_google, dict)
            else None
        )
        if signature:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def reply(completion: Completion, request: WireRequest) -> dict[str, Any]:
    used = completion.usage
    finish = completion.finish_reason or "STOP"
    finish = finish if finish.isupper() else _FINISH.get(finish, "STOP")
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": _parts(completion)},
                "finishReason": finish,
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": used.prompt,
            "cachedContentTokenCount": used.cached,
            "candidatesTokenCount": used.completion,
            "totalTokenCount": used.prompt + used.completion,
        },
        "modelVersion": request.model,
        "responseId": uuid.uuid4().hex[:24],
    }


def events(completion: Completion, request: WireRequest) -> list[tuple[str | None, Any]]:
    return [(None, reply(completion, request))]


def error(status: int, message: str) -> dict[str, Any]:
    code = _STATUS.get(status, "INTERNAL")
    return {"error": {"code": status, "message": message, "status": code}}


def count(request: WireRequest) -> dict[str, Any]:
    return {"totalTokens": estimated_tokens(request)}


def models(model: str) -> dict[str, Any]:
    methods = ["generateContent", "streamGenerateContent", "countTokens"]
    return {
        "models": [
            {"name": f"models/{model}", "displayName": model, "supportedGenerationMethods": methods}
        ]
    }


GEMINI = WireApi(
    name="gemini",
    serves="POST /v1beta/models/M:generateContent, :streamGenerateContent, :countTokens",
    match=match,
    parse=parse,
    reply=reply,
    events=events,
    error=error,
    count=count,
    models=models,
)
