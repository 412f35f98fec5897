"""Per-task counts (`TaskCounts`) and the aggregate figures over them (fractions 0–1).

A baseline's aggregate and both sides of a comparison are computed here, once.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from trialrun.metrics import pass_hat_k, percentile

MEETS = 1 - 1e-12  # a pass^k / solve^k figure of 1.0, give or take rounding


@dataclass(frozen=True, slots=True)
class TaskCounts:
    """One task of one side: counts, estimators and per-trial figures (`metrics`)."""

    task_id: str
    suite: Any  # str in practice; a hand-edited baseline may hold anything
    tier: Any
    policy: Any
    n: int  # trials with a result: infra errors left out
    passed: int
    solved: int
    undetermined: int
    pass_k: float | None
    solve_k: float | None
    flaky: bool
    # per-trial means, `latencies_s` and `trials`: a baseline task entry's "metrics"
    metrics: dict[str, Any]
    k: int | None = None  # the task's effective k (None: an old or converted baseline)
    infra_errors: int = 0

    @property
    def solve_n(self) -> int:
        """Trials counted for solve figures (infra errors and undetermined left out)."""
        return max(self.n - self.undetermined, 0)

    @property
    def pass_n(self) -> int:
        """Trials counted for pass figures: every finished one (an infra error is a failed
        pass)."""
        return self.n + self.infra_errors


def counts_of_entry(entry: dict[str, Any]) -> TaskCounts:
    """A baseline task entry (a dict with the file's keys) as counts.

    An entry without `pass_n` was blessed when infra errors were left out of pass too:
    with infra errors and a k, its pass^k is recomputed from its counts under today's
    rule (an infra error is a failed pass); its counts read the same under both."""
    metrics = entry.get("metrics")
    n, passed = int(entry.get("n") or 0), int(entry.get("passed") or 0)
    infra, k = _count(entry.get("infra_errors")), _k(entry.get("k"))
    pass_k = entry.get("pass_k")
    if "pass_n" not in entry and infra and k is not None and passed <= n:
        pass_k = pass_hat_k(n + infra, passed, k) if n + infra >= k else None
    return TaskCounts(
        task_id=str(entry["task_id"]),
        suite=entry.get("suite"),
        tier=entry.get("tier"),
        policy=entry.get("policy"),
        n=n,
        passed=passed,
        solved=int(entry.get("solved") or 0),
        undetermined=int(entry.get("undetermined") or 0),
        pass_k=pass_k,
        solve_k=entry.get("solve_k"),
        flaky=bool(entry.get("flaky")),
        metrics=metrics if isinstance(metrics, dict) else {},
        k=k,
        infra_errors=infra,
    )


def _count(value: Any) -> int:
    """A count a hand-edited file may hold as anything: an int ≥ 0, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _k(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def aggregate_counts(tasks: list[TaskCounts]) -> dict[str, Any]:
    """A baseline's aggregate figures over these tasks (fractions 0–1)."""

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    pass_n = sum(t.pass_n for t in tasks)
    solve_n = sum(t.n - t.undetermined for t in tasks)
    latencies = array("d", (x for t in tasks for x in t.metrics.get("latencies_s") or []))
    trials = sum(int(t.metrics.get("trials") or 0) for t in tasks)
    cost = sum(
        float(t.metrics.get("cost_usd") or 0.0) * int(t.metrics.get("trials") or 0) for t in tasks
    )
    return {
        "tasks": len(tasks),
        "pass_k_rate": mean([t.pass_k for t in tasks if t.pass_k is not None]),
        "solve_k_rate": mean([t.solve_k for t in tasks if t.solve_k is not None]),
        "mean_pass_rate": sum(t.passed for t in tasks) / pass_n if pass_n else None,
        "mean_solve_rate": sum(t.solved for t in tasks) / solve_n if solve_n else None,
        "tasks_meeting_pass_k": sum(1 for t in tasks if (t.pass_k or 0) >= MEETS),
        "tasks_meeting_solve_k": sum(1 for t in tasks if (t.solve_k or 0) >= MEETS),
        "flaky_task_count": sum(1 for t in tasks if t.flaky),
        "insufficient": sum(1 for t in tasks if t.pass_k is None or t.solve_k is None),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "cost_usd": cost,
        "cost_usd_per_trial": cost / trials if trials else None,
    }


def aggregate_of(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate figures recomputed from baseline task entries."""
    return aggregate_counts([counts_of_entry(t) for t in tasks])
