"""The Model protocol: one async chat-completion call, OpenAI-style messages in and out.

Messages are plain dicts in OpenAI chat format (`{"role": "user", "content": "…"}`,
assistant messages with `tool_calls`, `{"role": "tool", "tool_call_id", "content"}`);
tools are OpenAI function specs (`{"type": "function", "function": {name, description,
parameters}}`). Plain dataclasses keep the per-turn hot path cheap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from trialrun.core import Message as Message  # re-exported: the models' message type
from trialrun.core import ToolSpec as ToolSpec  # re-exported
from trialrun.errors import InfraError


@dataclass(slots=True)
class ToolCall:
    """One tool call requested by a model.

    `arguments` is the parsed JSON object; when the model produced arguments that are not
    a JSON object, `arguments` is {} and `arguments_error` says why (the agent's mistake,
    reported back to it as a tool error).

    `extra_content` is provider data that must travel back with the call when the
    conversation is replayed, e.g. `{"google": {"thought_signature": "…"}}` (Gemini's
    own OpenAI-compatible shape); None for providers that produce none.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_error: str | None = None
    raw_arguments: str | None = None
    extra_content: dict[str, Any] | None = None


@dataclass(slots=True)
class Usage:
    prompt: int = 0
    cached: int = 0
    completion: int = 0

    def add(self, other: Usage) -> None:
        self.prompt += other.prompt
        self.cached += other.cached
        self.completion += other.completion

    def as_dict(self) -> dict[str, int]:
        return {"prompt": self.prompt, "cached": self.cached, "completion": self.completion}


@dataclass(slots=True)
class Completion:
    """One answer. `extra_content`: provider data to replay on the assistant message
    itself (as `ToolCall.extra_content` is on a call); None for most providers."""

    text: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    cost_usd: float | None = None
    finish_reason: str | None = None
    extra_content: dict[str, Any] | None = None
    # why the answer is what it is, in words, when that is not the model's choice (a local
    # model's prompt over its context): the trial's notes and failure say it
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ReplyConstraint:
    """The shape a plain-text reply must take (judges use it; agents never do).

    `schema` is a JSON schema of the reply; `choices`, when set, lists the only allowed
    replies as plain strings (the schema is then `{"enum": choices}`). Each provider maps
    it to its native form (a llama.cpp grammar, `response_format`, `format`, …); a
    provider without one ignores it, and the caller's strict parser still checks the reply.
    """

    name: str
    schema: dict[str, Any]
    choices: tuple[str, ...] | None = None


class ConstraintRejected(InfraError):
    """The provider refused the reply constraint (e.g. HTTP 400 on `response_format`);
    the caller may retry once without it. An InfraError, so retries never repeat it."""


def wrapped_schema(reply: ReplyConstraint) -> dict[str, Any]:
    """The reply's schema with an object at the root (OpenAI, Gemini and tool inputs
    require one): a non-object schema becomes `{"verdict": schema}`."""
    if reply.schema.get("type") == "object":
        return reply.schema
    return {
        "type": "object",
        "properties": {"verdict": reply.schema},
        "required": ["verdict"],
        "additionalProperties": False,
    }


def unwrapped_text(reply: ReplyConstraint, text: str | None) -> str | None:
    """Undo `wrapped_schema` on a reply: `{"verdict": "YES"}` → `YES`; else unchanged."""
    if not text or reply.schema.get("type") == "object":
        return text

    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and isinstance(value.get("verdict"), str):
        return str(value["verdict"])
    return text


@dataclass(slots=True)
class CompletionParams:
    temperature: float | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None
    seed: int | None = None
    # The task being run, for models that script per task (the scripted model) and for
    # local models that constrain decoding to the task's tools. Real providers ignore it.
    task_id: str | None = None
    trial: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Constrain the reply's text (no tools only); None = free text.
    reply: ReplyConstraint | None = None


@runtime_checkable
class Model(Protocol):
    """A chat-completion client. `provider` and `model_id` come from the spec.

    `complete` raises `trialrun.errors.InfraError` when the provider cannot be reached
    after retries, and `trialrun.errors.ModelTimeout` when one call exceeds its timeout.
    """

    provider: str
    model_id: str

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion: ...

    async def aclose(self) -> None: ...
