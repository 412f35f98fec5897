"""Early stop: the trials of a task that can no longer change its verdict are not run.

With n = k trials planned, a pass^k task (judged, as everywhere, on solve^k) has
C(c,k)/C(k,k): one unsolved trial makes it 0 whatever follows. A pass@k task's is
1 - C(k-c,k)/C(k,k): one solved trial makes it 1. Infra errors and undetermined trials
settle nothing (they are never counted as solved, nor as unsolved; an infra error is a
failed pass, which the comparison below counts).

Against a baseline: when the run's model has a blessed baseline with an entry for the
task, the verdict settling is not enough. The run is compared with that baseline after
it, task by task (`compare`: a dropped passed or solved fraction whose one-sided Fisher
p-value is ≤ `[compare] alpha` is a regression), so the task is settled only once that
answer, regression or not, is the same for every outcome of the task's trials still to
run (`answer_fixed`: each of them an infra error, undetermined, unsolved, failed or
solved). A task without a baseline entry keeps the plain rule. The suite-level test
(compare's over every task, each gate's over its regression suites' blocking tasks) must
not change either: a task stops only once no outcome of any unfinished trial of the run could change
its answer (`_suite_guard`).

The trial that settles a task has `settled_after: j` in its results line (the task's
trials finished by then), and the task's remaining trials are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.rundir import ResultLine
from trialrun.tracking._open_answer import Counts, answer_fixed
from trialrun.tracking._suite_guard import Side, suite_answer_fixed

SETTLED_AFTER = "settled_after"
MAX_GUARDED = 100  # baseline tasks above which the suite test is not re-run per trial


def settles(metric: str, line: ResultLine) -> bool:
    """Whether this trial decides its task's verdict under `metric`."""
    if line.is_infra or line.solve is None:
        return False
    if metric == "pass@k":
        return line.solve is True
    return line.solve is False  # pass^k tasks: solve^k


@dataclass(slots=True)
class Tally:
    """One (task, model)'s trials so far, counted as the comparison counts them."""

    finished: int = 0  # every line, infra errors too: the pass denominator
    passed: int = 0
    solved: int = 0
    solve_n: int = 0  # infra errors and undetermined left out
    verdict_settled: bool = False

    def add(self, line: ResultLine) -> None:
        self.finished += 1
        self.passed += line.passed is True  # an infra error is a failed pass
        if line.is_infra:
            return
        self.solved += line.solve is True
        self.solve_n += line.solve is not None

    def counts(self) -> Counts:
        return Counts(self.passed, self.finished, self.solved, self.solve_n)


@dataclass(slots=True)
class Settlement:
    """Which (task, model) pairs are settled, and how many trials each had finished: the
    runner's `StopRule` for early stop.

    `suites`: the suites whose tasks stop early (None: all). `baselines`: per (task id,
    model label) the baseline entry's counts, `alpha` the comparison's; `task_k`: each
    task's k in the run; `baselines_dir`: the folder the baselines were read from.
    """

    enabled: bool = False
    suites: frozenset[str] | None = None
    baselines: dict[tuple[str, str], Counts] = field(default_factory=dict)
    alpha: float = 0.05
    baselines_dir: Path | None = None
    method: str = "exact"  # the suite test's ([compare] method)
    task_k: dict[str, int] = field(default_factory=dict)  # the run's tasks: their k
    # the task sets suite tests run over, each with its alpha (`_suite_guard.guarded_groups`)
    suite_groups: list[tuple[frozenset[str], float]] = field(default_factory=list)
    # a task's per-task test at other alphas than `alpha` (a gate's own, where it judges it)
    gate_alphas: dict[str, tuple[float, ...]] = field(default_factory=dict)
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    settled: dict[tuple[str, str], int] = field(default_factory=dict)

    def _tally(self, line: ResultLine) -> Tally:
        pair = (line.task_id, line.model)
        tally = self.tallies.get(pair)
        if tally is None:
            tally = self.tallies[pair] = Tally()
        tally.add(line)
        return tally

    def seen(self, line: ResultLine, task: Any = None) -> None:
        """A line already in the run folder (a resume): count it, note a settlement."""
        tally = self._tally(line)
        if task is not None and settles(str(task.metric), line):
            tally.verdict_settled = True
        after = line.extra.get(SETTLED_AFTER)
        if isinstance(after, int) and not isinstance(after, bool):
            self.settled.setdefault((line.task_id, line.model), after)

    def is_settled(self, task_id: str, model: str) -> bool:
        return self.enabled and (task_id, model) in self.settled

    def applies(self, task: Any) -> bool:
        """Whether `task` stops early in this run (its suite is among `suites`)."""
        return self.enabled and (self.suites is None or str(task.suite) in self.suites)

    def record(self, task: Any, line: ResultLine) -> None:
        """A trial just finished: mark the line `settled_after` when it settles its task."""
        pair = (line.task_id, line.model)
        tally = self._tally(line)
        if not self.applies(task) or pair in self.settled:
            return
        if settles(str(task.metric), line):
            tally.verdict_settled = True
        if not tally.verdict_settled:
            return
        before = self.baselines.get(pair)
        if before is not None:
            left = self.task_k.get(line.task_id, 0) - tally.finished
            alphas = (self.alpha, *self.gate_alphas.get(line.task_id, ()))
            if not all(answer_fixed(before, tally.counts(), left, a) for a in alphas):
                return
            if not self._suite_fixed(line.model):
                return
        self.settled[pair] = tally.finished
        line.extra[SETTLED_AFTER] = tally.finished

    def _suite_fixed(self, model: str) -> bool:
        """Whether no outcome of the run's unfinished trials (of every task the model's
        baseline has) could change a suite test's answer (`_suite_guard`)."""
        sides: dict[str, Side] = {}
        for task_id, k in self.task_k.items():
            before = self.baselines.get((task_id, model))
            if before is None:
                continue
            tally = self.tallies.get((task_id, model)) or Tally()
            settled = (task_id, model) in self.settled
            left = 0 if settled else max(0, k - tally.finished)
            sides[task_id] = Side(before, tally.counts(), left)
        if len(sides) > MAX_GUARDED:
            return False  # too many to test after each trial: no early stop against it
        return all(
            suite_answer_fixed([sides[t] for t in group if t in sides], alpha, self.method)
            for group, alpha in self.suite_groups
        )
