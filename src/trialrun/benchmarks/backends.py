"""Inference backends: how a model answers a benchmark record.

- `direct` (alias `jarvis-direct`): one completion, no tools.
- `agent` (alias `jarvis-agent`): a tool-calling loop over the benchmark's tools
  (`file_read`, `calculator`, any trialrun tool pack).

Both run as trialrun agents (`--agent trialrun.benchmarks.backends:direct`), so the
trial's model calls are counted as turns, tokens and cost, and the run folder records
which backend ran. Generation parameters (temperature, max_tokens, seed) travel in the
task's inputs. `ModelBackend` is the `InferenceBackend` protocol over a trialrun model.
"""

from __future__ import annotations

import time
from typing import Any

from trialrun.models import CompletionParams, assistant_message

BACKENDS: dict[str, str] = {
    "direct": "trialrun.benchmarks.backends:direct",
    "agent": "trialrun.benchmarks.backends:agent",
}
ALIASES = {"jarvis-direct": "direct", "jarvis-agent": "agent"}
AGENT_SYSTEM = (
    "You are a research assistant. Use the tools when they help; files attached to the "
    "question are in your working folder. When you are done, answer without calling a tool."
)
DEFAULT_MAX_TURNS = 10


def canonical_backend(name: str) -> str | None:
    """`direct` / `agent` for a backend name or alias; None when unknown."""
    name = ALIASES.get(name, name)
    return name if name in BACKENDS else None


def _params(extra: dict[str, Any], task_id: str) -> CompletionParams:
    generation = extra.get("generation") or {}
    return CompletionParams(
        temperature=generation.get("temperature"),
        max_tokens=generation.get("max_tokens"),
        seed=generation.get("seed"),
        task_id=task_id,
    )


class ModelBackend:
    """`InferenceBackend` over a trialrun model (or the trial's recording model)."""

    def __init__(self, model: Any, **defaults: Any) -> None:
        self.model = model
        self.defaults = defaults

    async def generate_full(self, prompt: str, **params: Any) -> dict[str, Any]:
        merged = {**self.defaults, **params}
        system = merged.pop("system", None)
        merged.pop("model", None)  # the seed's backends name the model per call; this one is bound
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        call = CompletionParams(**{k: v for k, v in merged.items() if v is not None})
        started = time.perf_counter()
        complete = getattr(self.model, "acomplete", None) or self.model.complete
        completion = await complete(messages, [], call)
        return {
            "content": completion.text or "",
            "usage": completion.usage.as_dict(),
            "latency_s": time.perf_counter() - started,
            "cost_usd": completion.cost_usd,
        }

    async def generate(self, prompt: str, **params: Any) -> str:
        return str((await self.generate_full(prompt, **params))["content"])

    async def close(self) -> None:
        close = getattr(self.model, "aclose", None)
        if close is not None:
            await close()


async def direct(task_input: Any, workspace: Any, tools: Any, model: Any) -> str:
    """One completion of the prompt, no tools."""
    params = _params(task_input.extra, task_input.task_id)
    backend = ModelBackend(model)
    return await backend.generate(
        task_input.user_message or task_input.prompt,
        temperature=params.temperature,
        max_tokens=params.max_tokens,
        seed=params.seed,
        task_id=params.task_id,
    )


async def agent(task_input: Any, workspace: Any, tools: Any, model: Any) -> dict[str, Any]:
    """The tool loop: call the model, run its tool calls, until it answers without one."""
    params = _params(task_input.extra, task_input.task_id)
    max_turns = int(task_input.extra.get("max_turns") or DEFAULT_MAX_TURNS)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": AGENT_SYSTEM},
        {"role": "user", "content": task_input.user_message or task_input.prompt},
    ]
    specs = tools.specs()
    for _ in range(max_turns):
        completion = await model.acomplete(messages, specs, params)
        calls = completion.tool_calls
        messages.append(assistant_message(completion))  # with any thought signature
        if not calls:
            return {"final_text": completion.text or "", "messages": messages}
        for call in calls:
            if call.arguments_error:
                content = f"{call.name}: invalid arguments: {call.arguments_error}"
            else:
                content = await tools.acall(call.name, call.arguments)
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}
            )
    raise RuntimeError(f"still calling tools after {max_turns} turns")
