"""`TrialTally`: what tracking keeps of one task × model's results lines, line by line.

The gates, baselines, comparisons and the JUnit report need a few sums and counts per
task, the trial latencies (a baseline holds them for its P95 bootstrap, packed here at
8 bytes a trial) and the numbers of the few trials that broke a rule. Nothing else of a
line is kept, so reading a 100k-trial run takes memory for its tasks, not its lines.
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass, field
from typing import Any

from trialrun.metrics import percentile
from trialrun.rundir import ResultLine

FORBIDDEN_GRADER = "forbiddenTools"
SHOWN_TRIALS = 8  # trial numbers a gate message names before "and N more"


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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
            self.first = tuple(sorted((*self.first, trial))[:SHOWN_TRIALS])

    def names(self) -> str:
        """"1, 2, 5" or "1, 2, … 8 and 3 more" (the smallest trial numbers first)."""
        shown = ", ".join(str(t) for t in self.first)
        left = self.count - len(self.first)
        return shown + (f" and {left} more" if left > 0 else "")


NOBODY = Offenders()  # every tally's offenders until one trial breaks the rule (never added to)
NO_COUNTS: dict[str, int] = {}  # every tally's failed graders and errors until it has one


def _own(offenders: Offenders) -> Offenders:
    """Offenders a tally may add to: a new record in place of the shared `NOBODY`."""
    return Offenders() if offenders is NOBODY else offenders


@dataclass(slots=True)
class TrialTally:
    """One task × model's lines folded into sums, counts and offending trial numbers."""

    finished: int = 0  # every line (infra errors too)
    counted: int = 0  # lines without an infra error
    latency_total_s: float = 0.0  # over every line (the JUnit test case's time)
    turns: float = 0.0  # sums over counted lines (a missing figure adds 0)
    tool_calls: float = 0.0
    tokens: float = 0.0  # prompt + completion
    cost_usd: float = 0.0
    latencies_s: array[float] = field(default_factory=lambda: array("d"))  # counted, numeric
    # counted trials, per grader and per error kind (the shared NO_COUNTS until one)
    failed_graders: dict[str, int] = field(default_factory=lambda: NO_COUNTS)
    errors: dict[str, int] = field(default_factory=lambda: NO_COUNTS)
    safety: Offenders = field(default_factory=lambda: NOBODY)
    # (trial, "grader: reason") of the smallest trial with a safety violation
    first_safety: tuple[int, str | None] | None = None
    forbidden: Offenders = field(default_factory=lambda: NOBODY)  # failed a forbiddenTools verdict
    not_solved: Offenders = field(default_factory=lambda: NOBODY)  # counted, solve or pass False

    def add(self, line: ResultLine, *, latency: bool = True) -> None:
        """Fold one line in. `latency=False`: its latency is appended elsewhere, to the
        array this tally was given (`load_run` shares the summary tally's: same lines,
        same rule, so one array serves both)."""
        self.finished += 1
        self.latency_total_s += _num(line.latency_s)
        failed = [v for v in line.verdicts if isinstance(v, dict) and v.get("passed") is False]
        if line.safety_violation:
            self.safety = _own(self.safety)
            self.safety.add(line.trial)
            if self.first_safety is None or line.trial < self.first_safety[0]:
                self.first_safety = (line.trial, _safety_reason(failed))
        if any(_is_forbidden(v) for v in failed):
            self.forbidden = _own(self.forbidden)
            self.forbidden.add(line.trial)
        if line.is_infra:
            return
        self.counted += 1
        if line.solve is False or line.passed is False:
            self.not_solved = _own(self.not_solved)
            self.not_solved.add(line.trial)
        if failed and self.failed_graders is NO_COUNTS:
            self.failed_graders = {}
        for name in dict.fromkeys(str(v.get("grader")) for v in failed):  # names interned:
            self.failed_graders[sys.intern(name)] = self.failed_graders.get(name, 0) + 1
        if line.error_kind:
            kind = sys.intern(line.error_kind)  # one "timeout" for every task, not one each
            if self.errors is NO_COUNTS:
                self.errors = {}
            self.errors[kind] = self.errors.get(kind, 0) + 1
        tok = line.tokens if isinstance(line.tokens, dict) else {}
        self.turns += _num(line.turns)
        self.tool_calls += len(line.tool_calls)
        self.tokens += _num(tok.get("prompt")) + _num(tok.get("completion"))
        self.cost_usd += _num(line.cost_usd)
        if latency and _is_number(line.latency_s):
            self.latencies_s.append(float(line.latency_s))  # type: ignore[arg-type]

    def metrics(self) -> dict[str, Any]:
        """Per-trial means over the counted trials (turns, tool calls, tokens, cost), the
        latency percentiles and the latencies: a baseline task entry's "metrics"."""
        n = self.counted
        return {
            "turns": self.turns / n if n else None,
            "tool_calls": self.tool_calls / n if n else None,
            "tokens": self.tokens / n if n else None,
            "cost_usd": self.cost_usd / n if n else None,
            "latency_p50_s": percentile(self.latencies_s, 50),
            "latency_p95_s": percentile(self.latencies_s, 95),
            # packed (8 bytes a trial); a baseline file writes them as a list
            "latencies_s": array("d", [round(x, 6) for x in self.latencies_s]),
            "trials": n,
        }


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
