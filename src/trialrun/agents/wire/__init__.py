"""The wire APIs the recording proxy speaks: each turns its requests into trialrun
messages and a Completion back into its answers (JSON or SSE).

`WIRE_APIS` is the route table, tried in order; `wire_api(name)` finds one by name;
`resolve` finds the API and endpoint of a request; `api_for_unknown` picks whose error
shape answers a request no API serves.
"""

from __future__ import annotations

from trialrun.agents.wire._anthropic import ANTHROPIC
from trialrun.agents.wire._chat import CHAT
from trialrun.agents.wire._gemini import GEMINI
from trialrun.agents.wire._responses import RESPONSES
from trialrun.agents.wire._types import (
    Endpoint,
    Target,
    WireApi,
    WireError,
    WireRequest,
    arguments_object,
    sse_body,
)

WIRE_APIS: tuple[WireApi, ...] = (GEMINI, ANTHROPIC, RESPONSES, CHAT)
API_NAMES = tuple(api.name for api in WIRE_APIS)
SERVED = "; ".join(f"{api.name}: {api.serves}" for api in WIRE_APIS)


def wire_api(name: str) -> WireApi:
    for api in WIRE_APIS:
        if api.name == name:
            return api
    raise KeyError(f"unknown wire API {name!r}; known: {', '.join(API_NAMES)}")


def resolve(target: Target) -> tuple[WireApi, Endpoint] | None:
    for api in WIRE_APIS:
        endpoint = api.match(target)
        if endpoint is not None:
            return api, endpoint
    return None


def api_for_unknown(target: Target) -> WireApi:
    """The API a request no route serves most likely meant: by path, then by headers."""
    path, headers = target.path, target.headers
    if path.startswith(("/v1beta", "/v1alpha")) or ":" in path or "x-goog-api-key" in headers:
        return GEMINI
    if "anthropic-version" in headers or "/messages" in path:
        return ANTHROPIC
    if "/responses" in path:
        return RESPONSES
    return CHAT


__all__ = [
    "API_NAMES",
    "SERVED",
    "WIRE_APIS",
    "Endpoint",
    "Target",
    "WireApi",
    "WireError",
    "WireRequest",
    "api_for_unknown",
    "arguments_object",
    "resolve",
    "sse_body",
    "wire_api",
]
