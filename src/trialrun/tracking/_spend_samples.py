"""The raw figures behind a comparison's P95 latency and cost per trial, kept for the
gate's interval: every trial latency on each side, and each common task's cost totals.

They are taken as `pooled_figures` takes them, so at no resampling they give the very
figures the comparison shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from trialrun.tracking._aggregate import TaskCounts
from trialrun.tracking._bootstrap import PairedTotals


@dataclass(frozen=True, slots=True)
class SpendSamples:
    latencies_before_s: tuple[float, ...]  # pooled raw trial latencies (empty: none kept)
    latencies_after_s: tuple[float, ...]
    costs: tuple[PairedTotals, ...]  # one per common task, in the comparison's order


def _latencies(tasks: list[TaskCounts]) -> tuple[float, ...]:
    return tuple(float(x) for t in tasks for x in t.metrics.get("latencies_s") or [])


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
