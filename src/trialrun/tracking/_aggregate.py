"""Per-task counts (`TaskCounts`) and the aggregate figures over them (fractions 0–1).

A baseline's aggregate and both sides of a comparison are computed here, once.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trialrun.metrics import SortedRuns, pass_hat_k

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
    metrics: Mapping[str, Any]
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


def counts_of_entry(entry: Mapping[str, Any]) -> TaskCounts:
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
        metrics=metrics if isinstance(metrics, Mapping) else {},
        k=k,
        infra_errors=infra,
    )


def _count(value: Any) -> int:
    """A count a hand-edited file may hold as anything: an int ≥ 0, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _k(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def aggregate_counts(tasks: Iterable[TaskCounts]) -> dict[str, Any]:
    """A baseline's aggregate figures over these tasks (fractions 0–1).

    One pass, so `tasks` may be made one at a time (`bless` does not hold them). Floats
    are summed in task order, as a sum over a list of them would be."""

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    count = pass_n = solve_n = passed = solved = trials = 0
    meeting_pass = meeting_solve = flaky = insufficient = 0
    pass_ks: list[float] = []
    solve_ks: list[float] = []
    costs = array("d")  # cost × trials of each task, packed (summed as a list would be)
    latencies = SortedRuns()  # 8 bytes a trial, sorted as they come (one packed copy)
    for t in tasks:
        count += 1
        if t.pass_k is not None:
            pass_ks.append(t.pass_k)
        if t.solve_k is not None:
            solve_ks.append(t.solve_k)
        pass_n += t.pass_n
        solve_n += t.n - t.undetermined
        passed += t.passed
        solved += t.solved
        latencies.add(t.metrics.get("latencies_s") or [])
        task_trials = int(t.metrics.get("trials") or 0)
        trials += task_trials
        costs.append(float(t.metrics.get("cost_usd") or 0.0) * task_trials)
        meeting_pass += (t.pass_k or 0) >= MEETS
        meeting_solve += (t.solve_k or 0) >= MEETS
        flaky += bool(t.flaky)
        insufficient += t.pass_k is None or t.solve_k is None
    cost = sum(costs)
    p50, p95 = latencies.percentiles((50, 95))
    return {
        "tasks": count,
        "pass_k_rate": mean(pass_ks),
        "solve_k_rate": mean(solve_ks),
        "mean_pass_rate": passed / pass_n if pass_n else None,
        "mean_solve_rate": solved / solve_n if solve_n else None,
        "tasks_meeting_pass_k": meeting_pass,
        "tasks_meeting_solve_k": meeting_solve,
        "flaky_task_count": flaky,
        "insufficient": insufficient,
        "latency_p50_s": p50,
        "latency_p95_s": p95,
        "cost_usd": cost,
        "cost_usd_per_trial": cost / trials if trials else None,
    }


def aggregate_of(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate figures recomputed from baseline task entries."""
    return aggregate_counts([counts_of_entry(t) for t in tasks])
