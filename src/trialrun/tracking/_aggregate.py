"""Aggregate figures of a baseline, recomputed from its task entries (fractions 0–1)."""

from __future__ import annotations

from typing import Any

from trialrun.metrics import percentile


def aggregate_of(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate figures recomputed from baseline task entries (fractions 0–1)."""

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    pass_ks = [t["pass_k"] for t in tasks if t.get("pass_k") is not None]
    solve_ks = [t["solve_k"] for t in tasks if t.get("solve_k") is not None]
    n = sum(int(t.get("n") or 0) for t in tasks)
    solve_n = sum(int(t.get("n") or 0) - int(t.get("undetermined") or 0) for t in tasks)
    latencies = [x for t in tasks for x in (t.get("metrics") or {}).get("latencies_s") or []]
    trials = sum(int((t.get("metrics") or {}).get("trials") or 0) for t in tasks)
    cost = sum(
        float((t.get("metrics") or {}).get("cost_usd") or 0.0)
        * int((t.get("metrics") or {}).get("trials") or 0)
        for t in tasks
    )
    return {
        "tasks": len(tasks),
        "pass_k_rate": mean(pass_ks),
        "solve_k_rate": mean(solve_ks),
        "mean_pass_rate": sum(int(t.get("passed") or 0) for t in tasks) / n if n else None,
        "mean_solve_rate": (
            sum(int(t.get("solved") or 0) for t in tasks) / solve_n if solve_n else None
        ),
        "tasks_meeting_pass_k": sum(1 for t in tasks if (t.get("pass_k") or 0) >= 1 - 1e-12),
        "tasks_meeting_solve_k": sum(1 for t in tasks if (t.get("solve_k") or 0) >= 1 - 1e-12),
        "flaky_task_count": sum(1 for t in tasks if t.get("flaky")),
        "insufficient": sum(
            1 for t in tasks if t.get("pass_k") is None or t.get("solve_k") is None
        ),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "cost_usd": cost,
        "cost_usd_per_trial": cost / trials if trials else None,
    }
