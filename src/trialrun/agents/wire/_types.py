"""What every wire API module provides to the recording proxy, and the records between them.

A wire API turns its request body into trialrun's OpenAI-style messages and tools (a
`WireRequest`) and a `Completion` back into its own answer: one JSON object, or the SSE
events its clients read. The proxy does the HTTP and the recording, the same for all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trialrun.core import Message, ToolSpec
from trialrun.models import Completion


class WireError(ValueError):
    """A malformed request: the message names the field and what it must be (HTTP 400)."""


@dataclass(slots=True)
class WireRequest:
    """One model request as trialrun's model sees it."""

    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    model: str | None = None
    stream: bool = False
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    # what only this API needs to answer (e.g. Responses' custom tools' names)
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Target:
    """What a request asks for: method, path (no query), query and lower-cased headers."""

    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A matched route: what to do (`complete`, `count`, `models`) and what the path says
    (Gemini puts the model and streaming in the path; None: read from the body)."""

    action: str
    stream: bool | None = None
    model: str | None = None
    sse: bool = True  # a streamed answer as SSE (else Gemini's JSON array)


@dataclass(frozen=True, slots=True)
class WireApi:
    """One wire API: its routes, its request parser and its answer renderers."""

    name: str
    serves: str  # the endpoints, for the message of an unknown endpoint
    match: Callable[[Target], Endpoint | None]
    parse: Callable[[Any], WireRequest]  # the JSON body; raises WireError
    # the answer to a request (its `model` is the name to answer with)
    reply: Callable[[Completion, WireRequest], dict[str, Any]]
    events: Callable[[Completion, WireRequest], list[tuple[str | None, Any]]]  # (name, data)
    error: Callable[[int, str], dict[str, Any]]  # status, message
    count: Callable[[WireRequest], dict[str, Any]]
    models: Callable[[str], dict[str, Any]]


def sse_body(events: list[tuple[str | None, Any]]) -> bytes:
    """Server-sent events: `event: NAME` (when named) and one `data:` line each."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        out.append(f"{head}data: {text}\n\n")
    return "".join(out).encode()


def estimated_tokens(request: WireRequest) -> int:
    """A token count for count-tokens endpoints: about four characters a token."""
    text = json.dumps([request.messages, request.tools], ensure_ascii=False)
    return max(1, math.ceil(len(text) / 4))


def arguments_text(raw: Any) -> str:
    """Tool-call arguments as the JSON text trialrun messages carry."""
    if isinstance(raw, str):
        return raw
    return json.dumps({} if raw is None else raw, ensure_ascii=False)


def arguments_object(text: Any) -> Any:
    """Tool-call arguments as a JSON value (APIs that send objects); bad JSON → {}."""
    if not isinstance(text, str):
        return text if text is not None else {}
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return {}


def need(condition: bool, where: str, what: str) -> None:
    """Raise WireError(`where: what`) unless `condition`."""
    if not condition:
        raise WireError(f"{where}: {what}")


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def function_tool(name: Any, description: Any, parameters: Any, where: str) -> ToolSpec:
    """An OpenAI function spec from the parts every API names its own way."""
    need(isinstance(name, str) and bool(name), where, "a tool needs a string 'name'")
    function: dict[str, Any] = {"name": name}
    if isinstance(description, str):
        function["description"] = description
    if isinstance(parameters, dict):
        function["parameters"] = parameters
    return {"type": "function", "function": function}
