"""The names a task's `tracked_metrics` may use, and the spellings accepted for them.

Task loading validates names against `TRACKED_METRICS` (after `canonical_metric`); the
summary reports each tracked figure per task.
"""

from __future__ import annotations

# name → what it is (shown by `trialrun schema` and in the README)
TRACKED_METRICS: dict[str, str] = {
    "pass^k": "C(c,k)/C(n,k) over passed trials of every finished one (infra errors fail)",
    "solve^k": "C(c,k)/C(n,k) over solved trials of those with a verdict",
    "pass@k": "1 - C(n-c,k)/C(n,k) over solved trials",
    "pass_rate": "passed trials / finished trials (an infra error is a failed pass)",
    "solve_rate": "solved trials / trials with a verdict",
    "latency_p50": "median trial latency, seconds",
    "latency_p95": "95th percentile trial latency, seconds",
    "cost": "mean cost per trial, USD",
    "tokens": "mean tokens (prompt + completion) per trial",
    "turns": "mean model calls per trial",
    "steps": "mean model calls per trial (the suite spec's name for turns)",
    "tool_calls": "mean tool calls per trial",
    "repeated_calls": "mean calls per trial repeating an identical earlier call",
    "tool_errors": "mean failed tool calls per trial",
    "recovered_rate": "trials that recovered from every failed call / trials with one",
    "time_to_first_tool": "median seconds from the agent's start to its first tool call",
}

# other spellings → canonical name
METRIC_ALIASES: dict[str, str] = {
    "cost_usd": "cost",
    "pass_k": "pass^k",
    "solve_k": "solve^k",
    "pass_at_k": "pass@k",
    "latency_p50_s": "latency_p50",
    "latency_p95_s": "latency_p95",
    "time_to_first_tool_s": "time_to_first_tool",
}


def canonical_metric(name: str) -> str | None:
    """The canonical tracked-metric name for `name`, or None when it is unknown."""
    if name in TRACKED_METRICS:
        return name
    return METRIC_ALIASES.get(name)
