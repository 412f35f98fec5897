"""The Agent protocol: task input + workspace + tools (+ model) → an AgentRun.

An agent reports its own failures (timeout, max turns, caps, a crash of user code) in
`failure`: that trial is not passed. It reports an infrastructure failure (provider
unreachable after retries) in `infra_error`: the runner runs that trial again
(`[retries] infra_trials`); if its last attempt still has one, it is a failed pass and
is left out of the solve figures.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from trialrun.core import Message, ToolCallRecord
from trialrun.models import Usage

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import Task
    from trialrun.tools import Toolbox


@dataclass(slots=True)
class AgentLimits:
    max_turns: int
    tool_call_budget: int | None = None
    timeout_s: float | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    # runs the agent's work under the trial's `timeout_s` budget, raising TimeoutError when
    # it is spent (the runner's clock, which does not count time waiting on model requests);
    # None: a wall-clock `timeout_s`
    within: Callable[[Awaitable[Any]], Awaitable[Any]] | None = None
    # awaits work that is not the agent's (a simulated user's reply) with that clock
    # stopped and nothing charged; None: the work is awaited as is
    off_clock: Callable[[Awaitable[Any]], Awaitable[Any]] | None = None


@dataclass(slots=True)
class AgentRun:
    messages: list[Message] = field(default_factory=list)
    final_text: str = ""
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    # one entry per model call: {"turn", "latency_s", "tokens": {...}, "cost_usd"}
    turn_meta: list[dict[str, Any]] = field(default_factory=list)
    loop_fires: int = 0
    # the agent's own failure kind ("timeout", "max_turns", "max_tokens", "max_cost",
    # "model_timeout", "agent_error") and message: pass = False
    failure: str | None = None
    failure_message: str | None = None
    # provider unreachable after retries, sandbox failure: pass = solve = None
    infra_error: str | None = None
    # what the trial should know that is not a failure (an agent's output cut at its
    # limit): the transcript's and the results line's `agent_notes`
    notes: list[str] = field(default_factory=list)


@runtime_checkable
class Agent(Protocol):
    name: str

    async def run(
        self,
        task: Task,
        workspace: Path | None,
        toolbox: Toolbox,
        model: Model | None,
        limits: AgentLimits,
    ) -> AgentRun: ...
