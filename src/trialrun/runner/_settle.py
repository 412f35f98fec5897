"""Early stop: the trials of a task that can no longer change its verdict are not run.

With n = k trials planned, a pass^k task (judged, as everywhere, on solve^k) has
C(c,k)/C(k,k): one unsolved trial makes it 0 whatever follows. A pass@k task's is
1 - C(k-c,k)/C(k,k): one solved trial makes it 1. That trial settles the task; its
results line says `settled_after: j` (the task's trials finished by then), and the
task's remaining trials are skipped. Infra errors and undetermined trials settle
nothing (they are never counted as solved, nor as failed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialrun.rundir import ResultLine

SETTLED_AFTER = "settled_after"


def settles(metric: str, line: ResultLine) -> bool:
    """Whether this trial decides its task's verdict under `metric`."""
    if line.is_infra or line.solve is None:
        return False
    if metric == "pass@k":
        return line.solve is True
    return line.solve is False  # pass^k tasks: solve^k


@dataclass(slots=True)
class Settlement:
    """Which (task, model) pairs are settled, and how many trials each had finished."""

    enabled: bool = False
    finished: dict[tuple[str, str], int] = field(default_factory=dict)
    settled: dict[tuple[str, str], int] = field(default_factory=dict)
    skipped: int = 0

    def seen(self, line: ResultLine) -> None:
        """A line already in the run folder (a resume): count it, note a settlement."""
        pair = (line.task_id, line.model)
        self.finished[pair] = self.finished.get(pair, 0) + 1
        after = line.extra.get(SETTLED_AFTER)
        if isinstance(after, int) and not isinstance(after, bool):
            self.settled.setdefault(pair, after)

    def is_settled(self, task_id: str, model: str) -> bool:
        return self.enabled and (task_id, model) in self.settled

    def record(self, task: Any, line: ResultLine) -> None:
        """A trial just finished: mark the line `settled_after` when it settles its task."""
        pair = (line.task_id, line.model)
        self.finished[pair] = self.finished.get(pair, 0) + 1
        if not self.enabled or pair in self.settled:
            return
        if settles(str(task.metric), line):
            self.settled[pair] = self.finished[pair]
            line.extra[SETTLED_AFTER] = self.finished[pair]
