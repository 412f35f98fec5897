"""What loading task files gives: the tasks, and the problems found on the way."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trialrun.tasks._model import Task
from trialrun.tasks._problems import Problem


@dataclass
class LoadReport:
    tasks: list[Task] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    invalid_files: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems
