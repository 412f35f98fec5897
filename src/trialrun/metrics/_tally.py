"""`Tally`: one (task, model)'s results lines folded into counters, line by line.

A summary is computed from tallies, never from held lines, so reading a 100k-trial run
takes memory for its tasks, not its trials. Per trial only the latency is kept (8 bytes,
packed: a percentile needs every one); turns, tokens and costs only feed means and sums,
so they are kept as exact running sums (`Exact`), which any path (this task's mean, the
run's, a sum over the lines in file order) rounds once, to `math.fsum` of the values.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from trialrun.metrics._exact_sum import ZERO, Exact, plus
from trialrun.rundir import NO_KEYS, ResultLine
from trialrun.rundir import shared_counts as shared_row_counts

# what a row takes from its first line when run.json has no task metadata (older runs)
FIRST_KEYS = ("k", "suite", "tier", "metric", "policy", "tags")
FIRST_FIELDS = ("provider", *FIRST_KEYS)
# the empty array every tally holds where it has nothing (yet): 10,000 tasks without a
# tool-call time hold one, not 10,000; a tally replaces it before appending
NONE_YET: array[float] = array("d")
# likewise the failed graders and error kinds of a tally without any: read-only, so no
# tally can count into the one every other tally shares (`counted` gives it its own)
NO_COUNTS: Mapping[str, int] = NO_KEYS  # (the rows' own empty: one for both)


def shared_counts(counts: Mapping[str, int]) -> Mapping[str, int]:
    """`counts` as the read-only mapping every equal one shares (`counted` copies it
    before counting into it): 10,000 tasks that each failed a grader once or twice hold
    a few."""
    if not isinstance(counts, dict) or not counts:
        return counts
    return shared_row_counts(tuple(counts.items()))


def num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _first_fields(line: ResultLine) -> dict[str, Any]:
    """The provider and FIRST_KEYS of a task's first line. Tasks whose first lines agree
    share one dict (it is only read): 10,000 tasks of a few suites and tiers hold a few."""
    values = tuple(
        tuple(v) if isinstance(v, list) else v  # tags: read as a sequence
        for v in (line.provider, *(line.extra.get(key) for key in FIRST_KEYS))
    )
    try:  # keyed by type too: 1, 1.0 and True are equal, not the same value here
        return _shared_fields(tuple((type(v), v) for v in values))
    except TypeError:  # something unhashable (a dict): this task's own
        return dict(zip(FIRST_FIELDS, map(_shared, values), strict=True))


@lru_cache(maxsize=1024)
def _shared_fields(typed: tuple[tuple[type, Any], ...]) -> dict[str, Any]:
    return dict(zip(FIRST_FIELDS, (_shared(v) for _, v in typed), strict=True))


def _shared(value: Any) -> Any:
    """Text interned (one "golden" for every task's first line), anything else as is."""
    return sys.intern(value) if isinstance(value, str) else value


def counted(counts: Mapping[str, int], key: str) -> dict[str, int]:
    """`counts` with one more for `key` (interned: one "timeout" for every task): the same
    dict when it is a tally's own, a new one in place of the shared `NO_COUNTS`."""
    own = counts if isinstance(counts, dict) else dict(counts)
    key = sys.intern(key)
    own[key] = own.get(key, 0) + 1
    return own


def failed_verdicts(line: ResultLine) -> list[dict[str, Any]]:
    """The line's verdicts that failed (`passed` False)."""
    return [v for v in line.verdicts if isinstance(v, dict) and v.get("passed") is False]


@dataclass(slots=True)
class TrajectoryTally:
    """A task's trajectory figures, over its counted trials whose lines carry them."""

    trials: int = 0  # counted trials with trajectory figures
    repeated_calls: int = 0
    tool_errors: int = 0
    with_tool_errors: int = 0  # trials with a failed call (`recovered` is not None)
    recovered: int = 0
    first_tool_s: array[float] = field(default_factory=lambda: array("d"))


# every tally's trajectory until a line carries one (never added to: a tally makes its own)
NO_TRAJECTORY = TrajectoryTally(first_tool_s=NONE_YET)


@dataclass(slots=True)
class TallyTotals:
    """What a summary's aggregates read of a task (its row made): how many lines, the
    counted trials' latencies, and the exact sums behind the run's means and totals.

    A `Tally` is one; a last summary keeps of each task only `Tally.totals()`."""

    lines: int = 0
    n: int = 0  # counted: not infra
    tool_calls: int = 0  # over counted trials
    prompt_tokens: int = 0  # token sums over every line
    cached_tokens: int = 0
    completion_tokens: int = 0
    # exact sums (and how many values each holds) over the counted trials that report
    # the figure: turns, cost; and the infra errors' costs (with `cost_sum`: every line's)
    turn_sum: Exact = ZERO
    turn_count: int = 0
    cost_sum: Exact = ZERO
    cost_count: int = 0
    infra_cost_sum: Exact = ZERO
    infra_cost_count: int = 0
    latencies: array[float] = field(default_factory=lambda: array("d"))  # counted, numeric

    def token_sums(self) -> dict[str, int]:
        """prompt, cached and completion tokens summed over every line."""
        return {"prompt": self.prompt_tokens, "cached": self.cached_tokens,
                "completion": self.completion_tokens}

    def cost_sums(self) -> tuple[Exact, ...]:
        """The exact cost sums that make the cost of every line (counted, infra)."""
        return (self.cost_sum,) if not self.infra_cost_count else (
            self.cost_sum, self.infra_cost_sum)


@dataclass(slots=True)
class Tally(TallyTotals):
    """Counters of one (task, model); `add` each of its lines once, in file order.

    A subclass sees every line first through `_fold` (tracking's `TrialTally` keeps its
    own few figures there): a task is read into one record, not one per reader."""

    first: dict[str, Any] | None = None  # provider and FIRST_KEYS of the first line
    trial_bits: int = 0  # bit t set: trial t added (by `Summarizer`); k bits, not a set
    settled_after: int | None = None  # early stop: the trials that settled the verdict
    passed: int = 0
    solved: int = 0
    undetermined: int = 0
    safety: int = 0
    # grader → trials failed, error kind → trials (every line); NO_COUNTS until one
    failed: Mapping[str, int] = field(default_factory=lambda: NO_COUNTS)
    error_kinds: Mapping[str, int] = field(default_factory=lambda: NO_COUNTS)
    token_sum: Exact = ZERO  # prompt + completion, over counted trials that report them
    token_count: int = 0
    trajectory: TrajectoryTally = field(default_factory=lambda: NO_TRAJECTORY)  # own once one
    closed: bool = False  # `close`d: what only the summary reads is let go, no line comes
    expected: int = 0  # the lines the task should have (its k; 0: unknown): see `trim`

    def close(self) -> None:
        """Let go of the per-trial figures only a summary reads (first-tool times) once
        it is made: the counters, sums and latencies stay. A closed tally takes no more
        lines."""
        if self.trajectory is not NO_TRAJECTORY:
            self.trajectory.first_tool_s = NONE_YET
        self.closed = True

    def trim(self) -> None:
        """Its arrays to their size (a growing array holds up to half again as many
        slots as values) and its counts shared: done once the task's expected lines are
        in."""
        self.latencies = self.latencies[:]  # a slice is allocated to its size
        if self.trajectory.first_tool_s is not NONE_YET:
            self.trajectory.first_tool_s = self.trajectory.first_tool_s[:]
        self.failed = shared_counts(self.failed)
        self.error_kinds = shared_counts(self.error_kinds)

    def totals(self) -> TallyTotals:
        """What is kept of this task once its row is made (a last summary): here the
        tally itself; a subclass may hand over a leaner record (tracking's)."""
        return self

    def _fold(self, line: ResultLine, failed: list[dict[str, Any]]) -> None:
        """What a subclass keeps of a line besides these counters: called first, before
        any of them changes, with the line's failed verdicts."""

    def add(self, line: ResultLine) -> None:
        if self.closed:
            raise ValueError("a closed tally takes no more lines")
        failed = failed_verdicts(line)
        self._fold(line, failed)
        if self.first is None:
            self.first = _first_fields(line)
        self.lines += 1
        after = line.extra.get("settled_after")
        if isinstance(after, int) and not isinstance(after, bool):
            self.settled_after = after if self.settled_after is None else min(
                self.settled_after, after
            )
        for name in dict.fromkeys(str(v.get("grader")) for v in failed):
            self.failed = counted(self.failed, name)
        kind = line.error_kind
        if kind:
            self.error_kinds = counted(self.error_kinds, kind)
        if line.safety_violation:
            self.safety += 1
        tok = line.tokens
        prompt = completion = None
        if isinstance(tok, dict):
            prompt, completion = num(tok.get("prompt")), num(tok.get("completion"))
            self.prompt_tokens += int(prompt or 0)
            self.cached_tokens += int(num(tok.get("cached")) or 0)
            self.completion_tokens += int(completion or 0)
        cost = num(line.cost_usd)
        if line.is_infra:
            if cost is not None:
                self.infra_cost_sum = plus(self.infra_cost_sum, cost)
                self.infra_cost_count += 1
            return
        self.n += 1
        self.passed += line.passed is True
        self.solved += line.solve is True
        self.undetermined += line.solve is None
        self.tool_calls += len(line.tool_calls)
        if line.repeated_calls is not None:
            self._add_trajectory(line)
        if (turns := num(line.turns)) is not None:
            self.turn_sum = plus(self.turn_sum, turns)
            self.turn_count += 1
        if (latency := num(line.latency_s)) is not None:
            self.latencies.append(latency)
        if cost is not None:
            self.cost_sum = plus(self.cost_sum, cost)
            self.cost_count += 1
        if prompt is not None or completion is not None:  # prompt + completion
            self.token_sum = plus(self.token_sum, (prompt or 0.0) + (completion or 0.0))
            self.token_count += 1

    def _add_trajectory(self, line: ResultLine) -> None:
        if self.trajectory is NO_TRAJECTORY:
            self.trajectory = TrajectoryTally(first_tool_s=NONE_YET)
        figures = self.trajectory
        figures.trials += 1
        figures.repeated_calls += int(line.repeated_calls or 0)
        figures.tool_errors += int(line.tool_errors or 0)
        if line.recovered is not None:
            figures.with_tool_errors += 1
            figures.recovered += line.recovered is True
        first = num(line.time_to_first_tool_s)
        if first is not None:
            if figures.first_tool_s is NONE_YET:
                figures.first_tool_s = array("d")
            figures.first_tool_s.append(first)


def tally_of(lines: list[ResultLine]) -> Tally:
    tally = Tally()
    for line in lines:
        tally.add(line)
    return tally
