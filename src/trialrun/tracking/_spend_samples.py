"""The raw figures behind a comparison's P95 latency and cost per trial, kept for the
gate's interval: every trial latency on each side, and each common task's cost totals.

They are taken as `pooled_figures` takes them, so at no resampling they give the very
figures the comparison shows.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from trialrun.tracking._aggregate import TaskCounts
from trialrun.tracking._bootstrap import (
    DRAWS,
    Bounds,
    PairedTotals,
    change_bounds,
    paired_mean_draws,
    percent_bounds,
    quantile_difference_draws,
)

SHOWN_CONFIDENCE = 0.95  # compare and the report show the merge gate's default bounds


@dataclass(frozen=True, slots=True)
class SpendSamples:
    latencies_before_s: Sequence[float]  # pooled raw trial latencies, packed (empty: none)
    latencies_after_s: Sequence[float]
    costs: tuple[PairedTotals, ...]  # one per common task, in the comparison's order

    def latency_bounds_ms(self, confidence: float = SHOWN_CONFIDENCE) -> Bounds | None:
        """Bootstrap bounds of the P95 increase in ms, as the gate draws them; None when a
        side kept no per-trial latencies."""
        if not self.latencies_before_s or not self.latencies_after_s:
            return None
        draws = quantile_difference_draws(
            self.latencies_before_s, self.latencies_after_s, 95, DRAWS
        )
        return change_bounds(draws, confidence, scale=1000)

    def cost_bounds_pct(self, confidence: float = SHOWN_CONFIDENCE) -> Bounds | None:
        """Paired bootstrap bounds of the cost-per-trial change in %, as the gate draws
        them; None below two tasks with a cost or at a zero baseline."""
        if sum(1 for t in self.costs if t.before_trials or t.after_trials) < 2:
            return None
        return percent_bounds(paired_mean_draws(self.costs, DRAWS), confidence)


def _latencies(tasks: list[TaskCounts]) -> array[float]:
    return array("d", (float(x) for t in tasks for x in t.metrics.get("latencies_s") or []))


def _cost(task: TaskCounts) -> tuple[float, int]:
    """(cost total, trials) of one task; (0, 0) when it has no cost figure."""
    m = task.metrics
    if m.get("cost_usd") is None:
        return 0.0, 0
    trials = int(m.get("trials") or task.n or 0)
    return float(m["cost_usd"]) * trials, trials


def spend_samples(before: list[TaskCounts], after: list[TaskCounts]) -> SpendSamples:
    """The samples of the common tasks (`before[i]` and `after[i]` are the same task)."""
    costs = tuple(
        PairedTotals(*_cost(b), *_cost(a)) for b, a in zip(before, after, strict=True)
    )
    return SpendSamples(_latencies(before), _latencies(after), costs)
