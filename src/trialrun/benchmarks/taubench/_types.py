"""The records of a τ-bench domain: tasks, their ground-truth actions, tool outcomes and
rewards (typed, frozen where they are facts read from the checkout)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# τ-bench's simulated user ends the conversation with this marker (its envs/user.py)
STOP_SIGNAL = "###STOP###"
# the pseudo-action a task file may use for an agent reply: not a tool, never replayed
RESPOND_ACTION = "respond"
# τ-bench ends the episode when the agent calls this tool; later calls do not count
TERMINATING_TOOL = "transfer_to_human_agents"


@dataclass(frozen=True, slots=True)
class TauAction:
    """One ground-truth action of a task: a tool name and its keyword arguments."""

    name: str
    kwargs: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class TauTask:
    """One task of a split: `task_id` is its index in the published list (the id τ-bench's
    results files use)."""

    task_id: int
    user_id: str
    instruction: str
    actions: tuple[TauAction, ...]
    outputs: tuple[str, ...]
    annotator: str | None = None


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a tool call returned: `ok` False is an error text (the database unchanged)."""

    ok: bool
    text: str


@dataclass(frozen=True, slots=True)
class TauReward:
    """τ-bench's reward: 1.0 when the database and the required outputs match, else 0.0;
    `reason` says why not (empty when 1.0)."""

    reward: float
    reason: str
    data_matches: bool
    missing_outputs: tuple[str, ...] = ()
    differences: tuple[str, ...] = field(default_factory=tuple)

    @property
    def solved(self) -> bool:
        return self.reward == 1.0
