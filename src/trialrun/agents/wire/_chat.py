"""OpenAI Chat Completions: `POST /v1/chat/completions` (also without `/v1`), `GET /v1/models`.

trialrun's messages are this API's, so a request passes through as it came; a streamed
answer is one chunk with the whole message, one with the finish reason and usage, `[DONE]`.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from trialrun.agents.wire._types import (
    Endpoint,
    Target,
    WireApi,
    WireRequest,
    as_float,
    as_int,
    need,
)
from trialrun.models import Completion, assistant_message

_FINISH = ("stop", "length", "tool_calls", "content_filter")


def match(target: Target) -> Endpoint | None:
    path = target.path.rstrip("/")
    if target.method == "POST" and path.endswith("/chat/completions"):
        return Endpoint("complete")
    if target.method == "GET" and path in ("/v1/models", "/models"):
        return Endpoint("models")
    return None


def parse(body: Any) -> WireRequest:
    need(isinstance(body, dict), "body", "must be a JSON object")
    messages = body.get("messages")
    need(isinstance(messages, list), "messages", "must be a list of chat messages")
    need(all(isinstance(m, dict) for m in messages), "messages", "each must be an object")
    tools = body.get("tools") or []
    need(isinstance(tools, list), "tools", "must be a list of function specs")
    return WireRequest(
        messages=list(messages),
        tools=[t for t in tools if isinstance(t, dict)],
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        stream=body.get("stream") is True,
        temperature=as_float(body.get("temperature")),
        max_tokens=as_int(body.get("max_tokens")) or as_int(body.get("max_completion_tokens")),
        seed=as_int(body.get("seed")),
    )


def usage(completion: Completion) -> dict[str, Any]:
    used = completion.usage
    return {
        "prompt_tokens": used.prompt,
        "completion_tokens": used.completion,
        "total_tokens": used.prompt + used.completion,
        "prompt_tokens_details": {"cached_tokens": used.cached},
    }


def _finish(completion: Completion) -> str:
    finish = "tool_calls" if completion.tool_calls else (completion.finish_reason or "stop")
    return finish if finish in _FINISH else "stop"


def reply(completion: Completion, request: WireRequest) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": assistant_message(completion),
                "finish_reason": _finish(completion),
            }
        ],
        "usage": usage(completion),
    }


def events(completion: Completion, request: WireRequest) -> list[tuple[str | None, Any]]:
    message = assistant_message(completion)
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("extra_content") is not None:
        delta["extra_content"] = message["extra_content"]
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.model,
    }
    return [
        (None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
        (
            None,
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "finish_reason": _finish(completion)}],
                "usage": usage(completion),
            },
        ),
        (None, "[DONE]"),
    ]


_ERROR_TYPES = {400: "invalid_request_error", 404: "not_found_error", 413: "invalid_request_error"}


def error(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def count(request: WireRequest) -> dict[str, Any]:  # Chat Completions has no count endpoint
    raise NotImplementedError


def models(model: str) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [{"id": model, "object": "model", "created": 0, "owned_by": "trialrun"}],
    }


CHAT = WireApi(
    name="chat",
    serves="POST /v1/chat/completions, GET /v1/models",
    match=match,
    parse=parse,
    reply=reply,
    events=events,
    error=error,
    count=count,
    models=models,
)
