"""`TrialTally`: what tracking keeps of one task × model's results lines, line by line.

The gates, baselines, comparisons and the JUnit report need a few sums and counts per
task, the trial latencies (a baseline holds them for its P95 bootstrap, packed here at
8 bytes a trial) and the numbers of the few trials that broke a rule. Nothing else of a
line is kept, so reading a 100k-trial run takes memory for its tasks, not its lines.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from trialrun.core import Interner, SharedValues
from trialrun.metrics import (
    NO_COUNTS,
    ZERO,
    Exact,
    Tally,
    TallyTotals,
    combined,
    counted,
    num,
    parts,
    percentile,
    plus,
    rounded,
)
from trialrun.rundir import ResultLine

FORBIDDEN_GRADER = "forbiddenTools"
INFRA = "infra"  # the error kind of an infra error
SHOWN_TRIALS = 8  # trial numbers a gate message names before "and N more"


@dataclass(slots=True)
class Offenders:
    """The trials that broke a rule: how many, and the smallest numbers (sorted)."""

    count: int = 0
    # at most SHOWN_TRIALS, ascending; a tuple: most tasks break no rule, and the empty
    # tuple is one object shared by all of them (an empty list is 56 bytes each)
    first: tuple[int, ...] = ()

    def add(self, trial: int) -> None:
        self.count += 1
        if len(self.first) < SHOWN_TRIALS or trial < self.first[-1]:
            self.first = _shared_trials(tuple(sorted((*self.first, trial))[:SHOWN_TRIALS]))

    def names(self) -> str:
        """"1, 2, 5" or "1, 2, … 8 and 3 more" (the smallest trial numbers first)."""
        shown = ", ".join(str(t) for t in self.first)
        left = self.count - len(self.first)
        return shown + (f" and {left} more" if left > 0 else "")


# one tuple for every equal one: 10,000 tasks that each failed a trial or two name a few
# dozen distinct lists of trial numbers
_shared_trials: Interner[tuple[int, ...]] = Interner()


NOBODY = Offenders()  # every tally's offenders until one trial breaks the rule (never added to)


# finished tasks' offenders, one record for every equal one (never added to: see `_own`)
_OFFENDERS: SharedValues[tuple[int, tuple[int, ...]], Offenders] = SharedValues()


def _shared(offenders: Offenders) -> Offenders:
    """The record every finished task with the same offenders shares."""
    if offenders is NOBODY:
        return offenders
    return _OFFENDERS.share((offenders.count, offenders.first), offenders)


def _own(offenders: Offenders) -> Offenders:
    """Offenders a tally may add to: a new record in place of a shared one (`NOBODY`, or
    the record of a finished task's offenders, should a line still come)."""
    if offenders is NOBODY:
        return Offenders()
    if _OFFENDERS.held((offenders.count, offenders.first)) is offenders:
        return Offenders(offenders.count, offenders.first)
    return offenders


class _Reading:
    """What tracking reads of a task, alike on the `TrialTally` its lines are folded into
    and on the `TrialFigures` kept of it once its summary row is made."""

    __slots__ = ()
    lines: int
    n: int
    tool_calls: int
    latencies: array[float]
    turn_sum: Exact
    token_sum: Exact
    cost_sum: Exact
    infra_latency_sum: Exact

    @property
    def finished(self) -> int:
        """Every line (infra errors too)."""
        return self.lines

    @property
    def counted(self) -> int:
        """Lines without an infra error."""
        return self.n

    @property
    def latency_total_s(self) -> float:
        """Every line's latency summed (the JUnit test case's time; a missing one adds 0),
        rounded once."""
        return combined((*self.latencies, *parts(self.infra_latency_sum)))

    @property
    def latencies_s(self) -> array[float]:
        """The counted lines' numeric latencies, in file order (the summary's array)."""
        return self.latencies

    def metrics(self) -> dict[str, Any]:
        """Per-trial means over the counted trials (turns, tool calls, tokens, cost), the
        latency percentiles and the latencies: a baseline task entry's "metrics"."""
        return dict(self.metrics_view())

    def metrics_view(self) -> TaskMetrics:
        """`metrics()` as a read-only mapping computed on reading: it holds the sums and
        this tally's latencies, not a dict and a copy of them (a comparison keeps one per
        task of the first run while it reads the second)."""
        return TaskMetrics(self.n, rounded(self.turn_sum), self.tool_calls,
                           rounded(self.token_sum), rounded(self.cost_sum), self.latencies)


@dataclass(slots=True)
class TrialFigures(TallyTotals, _Reading):
    """What tracking keeps of a task × model once its summary row is made (a
    `TrialTally`'s `totals()`): its aggregates' totals, per-trial means and latencies,
    counted failures and the trials that broke a rule; nothing the row already holds."""

    token_sum: Exact = ZERO  # prompt + completion, over counted trials
    failed_graders: Mapping[str, int] = field(default_factory=lambda: NO_COUNTS)  # counted
    errors: Mapping[str, int] = field(default_factory=lambda: NO_COUNTS)  # counted trials
    infra_latency_sum: Exact = ZERO
    safety_trials: Offenders = field(default_factory=lambda: NOBODY)
    first_safety: tuple[int, str | None] | None = None
    forbidden: Offenders = field(default_factory=lambda: NOBODY)
    not_solved: Offenders = field(default_factory=lambda: NOBODY)
    first_gates: Any = None


@dataclass(slots=True)
class TrialTally(Tally, _Reading):
    """One task × model's lines folded into sums, counts and offending trial numbers.

    The summary's own `Tally` of the task (the `Summarizer` of `load_run` makes these):
    its counters (lines, counted trials, tool calls, failed graders, latencies) serve
    tracking too, and only what the summary does not count is added here. Once the
    task's row is made, `totals()` is what is kept (`TrialFigures`)."""

    # the infra errors' latencies, exactly summed: with the counted lines' `latencies`,
    # the time of every line (`latency_total_s`)
    infra_latency_sum: Exact = ZERO
    # the failed graders of counted lines, once an infra line failed one (None: the
    # summary's `failed`, which then counts the same trials)
    counted_failed: dict[str, int] | None = None
    safety_trials: Offenders = field(default_factory=lambda: NOBODY)
    # (trial, "grader: reason") of the smallest trial with a safety violation
    first_safety: tuple[int, str | None] | None = None
    forbidden: Offenders = field(default_factory=lambda: NOBODY)  # failed a forbiddenTools verdict
    not_solved: Offenders = field(default_factory=lambda: NOBODY)  # counted, solve or pass False
    first_gates: Any = None  # older runs (no run.json task entry): the first line's gates

    def totals(self) -> TrialFigures:
        """What tracking and the summary's aggregates read on, once the row is made."""
        return TrialFigures(
            lines=self.lines, n=self.n, tool_calls=self.tool_calls,
            prompt_tokens=self.prompt_tokens, cached_tokens=self.cached_tokens,
            completion_tokens=self.completion_tokens, turn_sum=self.turn_sum,
            turn_count=self.turn_count, cost_sum=self.cost_sum, cost_count=self.cost_count,
            infra_cost_sum=self.infra_cost_sum, infra_cost_count=self.infra_cost_count,
            latencies=self.latencies, token_sum=self.token_sum,
            failed_graders=self.failed_graders, errors=self.errors,
            infra_latency_sum=self.infra_latency_sum, safety_trials=self.safety_trials,
            first_safety=self.first_safety, forbidden=self.forbidden,
            not_solved=self.not_solved, first_gates=self.first_gates,
        )

    @property
    def failed_graders(self) -> Mapping[str, int]:
        """Counted trials, per grader that failed in them."""
        return self.failed if self.counted_failed is None else self.counted_failed

    @property
    def errors(self) -> Mapping[str, int]:
        """Counted trials, per error kind (infra errors are not counted trials)."""
        kinds = self.error_kinds
        if INFRA not in kinds:
            return kinds
        return {kind: count for kind, count in kinds.items() if kind != INFRA}

    def trim(self) -> None:
        """The summary's trim, and the offending trials shared with every task that has
        the same (one record, not one a task)."""
        Tally.trim(self)
        self.safety_trials = _shared(self.safety_trials)
        self.forbidden = _shared(self.forbidden)
        self.not_solved = _shared(self.not_solved)

    def _fold(self, line: ResultLine, failed: list[dict[str, Any]]) -> None:
        if not self.lines:
            self.first_gates = line.extra.get("gates")
        if line.safety_violation:
            self.safety_trials = _own(self.safety_trials)
            self.safety_trials.add(line.trial)
            if self.first_safety is None or line.trial < self.first_safety[0]:
                self.first_safety = (line.trial, _safety_reason(failed))
        if any(_is_forbidden(v) for v in failed):
            self.forbidden = _own(self.forbidden)
            self.forbidden.add(line.trial)
        if line.is_infra:
            if failed and self.counted_failed is None:  # from here `failed` counts more
                self.counted_failed = dict(self.failed)
            if (latency := num(line.latency_s)) is not None:
                self.infra_latency_sum = plus(self.infra_latency_sum, latency)
            return
        if line.solve is False or line.passed is False:
            self.not_solved = _own(self.not_solved)
            self.not_solved.add(line.trial)
        if self.counted_failed is not None:
            for name in dict.fromkeys(str(v.get("grader")) for v in failed):
                self.counted_failed = counted(self.counted_failed, name)


class TaskMetrics(Mapping[str, Any]):
    """One task's "metrics" (see `TrialTally.metrics`), each value made when it is read."""

    __slots__ = ("_n", "_turns", "_tool_calls", "_tokens", "_cost", "_latencies")
    KEYS = ("turns", "tool_calls", "tokens", "cost_usd", "latency_p50_s", "latency_p95_s",
            "latencies_s", "trials")

    def __init__(self, n: int, turns: float, tool_calls: int, tokens: float, cost: float,
                 latencies: array[float]) -> None:
        self._n, self._turns, self._tool_calls = n, turns, tool_calls
        self._tokens, self._cost, self._latencies = tokens, cost, latencies

    def __getitem__(self, key: str) -> Any:
        match key:
            case "turns":
                return self._mean(self._turns)
            case "tool_calls":
                return self._mean(self._tool_calls)
            case "tokens":
                return self._mean(self._tokens)
            case "cost_usd":
                return self._mean(self._cost)
            case "latency_p50_s":
                return percentile(self._latencies, 50)
            case "latency_p95_s":
                return percentile(self._latencies, 95)
            case "latencies_s":  # packed (8 bytes a trial); a baseline file writes a list
                return array("d", [round(x, 6) for x in self._latencies])
            case "trials":
                return self._n
        raise KeyError(key)

    def _mean(self, total: float) -> float | None:
        """Per counted trial; None without one."""
        return total / self._n if self._n else None

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)


def _safety_reason(failed: list[dict[str, Any]]) -> str | None:
    for v in failed:
        details = obj if isinstance(obj := v.get("details"), dict) else {}
        if details.get("safety_violation") is True:
            reason = details.get("reason")
            return f"{v.get('grader')}: {reason}" if isinstance(reason, str) else None
    return None


def _is_forbidden(verdict: dict[str, Any]) -> bool:
    details = obj if isinstance(obj := verdict.get("details"), dict) else {}
    return verdict.get("grader") == FORBIDDEN_GRADER or details.get("type") == FORBIDDEN_GRADER
