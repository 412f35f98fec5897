"""Planning: filter tasks, then models × tasks × k → TrialSpecs."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trialrun.tasks import Task


@dataclass(slots=True)
class Filters:
    """Task selection: each given filter must match (globs on task_id; exact suite/tier/tag)."""

    task: list[str] = field(default_factory=list)
    suite: list[str] = field(default_factory=list)
    tier: list[str] = field(default_factory=list)
    tag: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        return {"task": self.task, "suite": self.suite, "tier": self.tier, "tag": self.tag}

    def matches(self, task: Task) -> bool:
        if self.task and not any(fnmatch.fnmatchcase(task.task_id, g) for g in self.task):
            return False
        if self.suite and task.suite not in self.suite:
            return False
        if self.tier and (task.tier or "") not in self.tier:
            return False
        return not (self.tag and not set(self.tag) & set(task.tags))


@dataclass(slots=True, frozen=True)
class TrialSpec:
    task: Any  # Task (kept untyped: frozen dataclass over a pydantic model)
    model: str  # full spec text
    trial: int

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.task.task_id, self.model, self.trial)


def effective_k(task: Task, k: int | None) -> int:
    """`-k` override > the task's trials.k (which already includes its suite default)."""
    return k if k is not None else task.k


def plan(
    tasks: Sequence[Task],
    models: Sequence[str],
    k: int | None,
    done: Iterable[tuple[Any, ...]] = (),
) -> list[TrialSpec]:
    """Every (model, task, trial) not in `done`, models outermost, trials innermost."""
    skip = set(done)
    out: list[TrialSpec] = []
    for model in models:
        for task in tasks:
            for trial in range(effective_k(task, k)):
                if (task.task_id, model, trial) not in skip:
                    out.append(TrialSpec(task, model, trial))
    return out


def trials_first(specs: list[TrialSpec]) -> list[TrialSpec]:
    """The same trials, every task's trial 0 first, then every trial 1, and so on (stable
    within a round). For early stop: with several trials in flight, a task's later trials
    then start once its earlier ones have had time to settle it, instead of all at once."""
    return sorted(specs, key=lambda spec: spec.trial)
