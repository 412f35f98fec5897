"""What the overview and task pages need of every results line, held as columns.

A 100,000-trial run viewed or reported holds one entry per line. As one object a line
(with its offset, trial, figures and text) cost ~260 bytes; as columns (packed numbers,
one status byte, shared tuples) ~60 bytes plus its answer's text. The trial page itself
re-reads the full line from results.jsonl at `offset(i)`. Entry `i` is the line's trial
page number: its place among the lines, in file order.
"""

from __future__ import annotations

import math
import sys
from array import array
from typing import Any

from trialrun.rundir import ResultLine

STATUSES = ("solved", "failed", "undetermined", "infra", "error")
_STATUS_CODE = {name: code for code, name in enumerate(STATUSES)}
_NONE, _INT, _FLOAT = 0, 1, 2  # how a figure was written: null, an integer, a number
_KIND = {int: _INT, float: _FLOAT}  # by exact class: JSON gives no subclass


def trial_status(line: ResultLine) -> str:
    """solved | failed | undetermined | infra | error, one word per trial."""
    if line.is_infra:
        return "infra"
    if line.solve is True:
        return "solved"
    if line.solve is None:
        return "undetermined"
    if line.passed is False:
        return "error"
    return "failed"


def _failed_graders(line: ResultLine) -> tuple[str, ...]:
    """Interned (a grader's name is held once, not once per line); most lines: ()."""
    names = [sys.intern(str(v.get("grader"))) for v in line.verdicts if v.get("passed") is False]
    return tuple(dict.fromkeys(names)) if names else ()


class _Figures:
    """A column of figures (null, an integer or a number; validated by `ResultLine`,
    so an integer is at most 2^53 and a float holds it exactly), read back as written."""

    __slots__ = ("kinds", "values")

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.values = array("d")

    def append(self, value: Any) -> None:
        kind = _KIND.get(value.__class__, _NONE)  # a bool (or anything else): null
        self.kinds.append(kind)
        self.values.append(value if kind == _FLOAT else float(value) if kind else math.nan)

    def __getitem__(self, i: int) -> int | float | None:
        kind = self.kinds[i]
        if kind == _NONE:
            return None
        return int(self.values[i]) if kind == _INT else self.values[i]

    def numbers(self, rows: list[int]) -> list[float]:
        """The non-null figures of the given entries."""
        return [self.values[i] for i in rows if self.kinds[i] != _NONE]


class TrialColumns:
    """Per results line (in file order): its offset, trial, status, failed graders,
    latency, cost, turns, tool calls, error and the first 200 characters of its answer."""

    def __init__(self) -> None:
        self.offsets = array("q")
        self.trials = array("q")
        self.statuses = bytearray()
        self.failed: list[tuple[str, ...]] = []
        self.latency = _Figures()
        self.cost = _Figures()
        self.turns = _Figures()
        self.tool_calls = array("q")
        self.errors: list[Any] = []
        self.texts: list[str] = []

    def __len__(self) -> int:
        return len(self.offsets)

    def add(self, offset: int, line: ResultLine) -> None:
        self.offsets.append(offset)
        self.trials.append(line.trial)
        self.statuses.append(_STATUS_CODE[trial_status(line)])
        self.failed.append(_failed_graders(line))
        self.latency.append(line.latency_s)
        self.cost.append(line.cost_usd)
        self.turns.append(line.turns)
        self.tool_calls.append(len(line.tool_calls))
        self.errors.append(line.error)
        text = (line.final_text or "")[:200]
        self.texts.append(sys.intern(text) if len(text) <= 20 else text)

    def status(self, i: int) -> str:
        return STATUSES[self.statuses[i]]

    def solved(self, i: int) -> bool:
        return self.statuses[i] == 0

    def counted(self, i: int) -> bool:
        """Not an infra error (those are not counted in the figures)."""
        return self.statuses[i] != _STATUS_CODE["infra"]

    def entry(self, i: int) -> dict[str, Any]:
        """Entry `i` as a task page lists it."""
        return {
            "line": i, "trial": self.trials[i], "status": self.status(i),
            "failed_graders": self.failed[i], "latency_s": self.latency[i],
            "cost_usd": self.cost[i], "turns": self.turns[i],
            "tool_calls": self.tool_calls[i], "error": self.errors[i],
            "final_text": self.texts[i],
        }

    def kept(self, numbers: list[int]) -> TrialColumns:
        """The columns of the given entries only, in that order."""
        out = TrialColumns()
        for name in ("offsets", "trials", "tool_calls"):
            getattr(out, name).extend(getattr(self, name)[i] for i in numbers)
        out.statuses.extend(self.statuses[i] for i in numbers)
        for name in ("latency", "cost", "turns"):
            source, target = getattr(self, name), getattr(out, name)
            target.kinds.extend(source.kinds[i] for i in numbers)
            target.values.extend(source.values[i] for i in numbers)
        for name in ("failed", "errors", "texts"):
            getattr(out, name).extend(getattr(self, name)[i] for i in numbers)
        return out
