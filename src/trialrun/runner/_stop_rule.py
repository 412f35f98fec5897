"""Early stop as the runner sees it: a `StopRule` the caller builds (`trialrun.tracking`'s
`early_stop_rule` compares with blessed baselines), asked before each trial whether its
task is settled and told each finished trial. The runner knows nothing of comparing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from trialrun.config import ProjectConfig

if TYPE_CHECKING:
    from trialrun.rundir import ResultLine
    from trialrun.tasks import Task


@dataclass(frozen=True, slots=True)
class StopPlan:
    """What a run's early stop is built for, read once before the first trial."""

    suites: frozenset[str] | None  # the suites whose tasks stop early (None: every suite)
    baselines: Path | None  # given, or a resume's (None: the rule's default folder)
    models: Sequence[str]  # model labels
    task_k: dict[str, int]  # each task's k in this run
    tasks: Sequence[Task] = field(default_factory=tuple)
    # the run's trialrun.toml (its [gates], [compare], [baselines]), resolved by the entry
    project: ProjectConfig = field(default_factory=ProjectConfig)


class StopRule(Protocol):
    """Which (task, model) pairs need no more trials."""

    @property
    def enabled(self) -> bool: ...

    @property
    def baselines_dir(self) -> Path | None:
        """The baselines folder compared with (recorded in run.json for a resume)."""
        ...

    def seen(self, line: ResultLine, task: Any = None) -> None:
        """A line already in the run folder (a resume)."""

    def is_settled(self, task_id: str, model: str) -> bool: ...

    def record(self, task: Any, line: ResultLine) -> None:
        """A trial just finished (the rule may mark its line before it is written)."""


StopRules = Callable[[StopPlan, list[str]], StopRule]  # plan, the run's warnings -> rule


class NeverStop:
    """No early stop: every planned trial runs."""

    enabled = False
    baselines_dir = None

    def seen(self, line: ResultLine, task: Any = None) -> None:
        return None

    def is_settled(self, task_id: str, model: str) -> bool:
        return False

    def record(self, task: Any, line: ResultLine) -> None:
        return None
