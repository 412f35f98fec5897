"""The Model protocol: one async chat-completion call, OpenAI-style messages in and out.

Messages are plain dicts in OpenAI chat format (`{"role": "user", "content": "…"}`,
assistant messages with `tool_calls`, `{"role": "tool", "tool_call_id", "content"}`);
tools are OpenAI function specs (`{"type": "function", "function": {name, description,
parameters}}`). Plain dataclasses keep the per-turn hot path cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from trialrun.core import Message, ToolSpec


@dataclass(slots=True)
class ToolCall:
    """One tool call requested by a model.

    `arguments` is the parsed JSON object; when the model produced arguments that are not
    a JSON object, `arguments` is {} and `arguments_error` says why (the agent's mistake,
    reported back to it as a tool error).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_error: str | None = None
    raw_arguments: str | None = None


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
    text: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    cost_usd: float | None = None
    finish_reason: str | None = None


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
