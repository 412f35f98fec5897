"""The gate's spend rules: P95 latency and cost per trial may not grow beyond their limits.

A rule fails only when the increase is beyond the limit with confidence: the one-sided
bootstrap lower bound of the increase (`spend_confidence`, default 95 %) is above the
limit. A P95 difference is bootstrapped over the pooled trial latencies of each side; the
cost per trial over the common tasks, paired (a baseline keeps each task's mean cost, not
each trial's). Every message shows the lower and upper bounds; when none can be drawn (no
raw latencies in an old baseline, fewer than two tasks with a cost) it says so and the
rule judges the figures themselves, as a point comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trialrun.tracking._bootstrap import (
    DRAWS,
    Bounds,
    PairedTotals,
    change_bounds,
    paired_mean_draws,
    percent_bounds,
    quantile_difference_draws,
)
from trialrun.tracking._gate_context import GateContext, Outcome
from trialrun.tracking._gate_result import RuleResult

FEW_TRIALS = 20  # below this a P95 is about the slowest trial


@dataclass(frozen=True, slots=True)
class SpendVerdict:
    failed: bool
    message: str


def _limits(*limits: tuple[float | None, str]) -> str:
    """The limits that are set, each in its template: "15 ms / 5%"."""
    return " / ".join(template.format(value) for value, template in limits if value is not None)


def _verdict(failed: bool, beyond_point: bool) -> str:
    if failed:
        return "exceeded beyond noise"
    return "within noise" if beyond_point else "within the limit"


def _range(iv: Bounds, fmt: str, unit: str) -> str:
    return f"{iv.label} {fmt.format(iv.low)}…{fmt.format(iv.high)}{unit}"


def _usd(value: float) -> str:
    return f"{'-' if value < 0 else '+'}${abs(value):.4f}"


def latency_verdict(
    before_s: float,
    after_s: float,
    latencies_before_s: Sequence[float],
    latencies_after_s: Sequence[float],
    *,
    max_ms: float | None,
    max_pct: float | None,
    confidence: float,
) -> SpendVerdict:
    """P95 `before_s` → `after_s` against the limits, with the bootstrap bounds of the
    increase drawn from the raw latencies (none on a side: the P95s alone are judged)."""
    delta_ms = (after_s - before_s) * 1000
    change = delta_ms / (before_s * 1000) * 100 if before_s > 0 else None
    limit = _limits((max_ms, "{:g} ms"), (max_pct, "{:g}%"))
    beyond_point = (max_ms is not None and delta_ms > max_ms) or (
        max_pct is not None and change is not None and change > max_pct
    )
    head = f"{before_s:.3f} s → {after_s:.3f} s"
    if not latencies_before_s or not latencies_after_s:
        text = (
            f"{head} ({delta_ms:+.0f} ms); limit {limit}: "
            f"{'exceeded' if beyond_point else 'within the limit'}; no per-trial "
            "latencies on one side (an old baseline?): no bounds, the P95s judged alone"
        )
        return SpendVerdict(beyond_point, text)
    draws = quantile_difference_draws(latencies_before_s, latencies_after_s, 95, DRAWS)
    ms_iv = change_bounds(draws, confidence, scale=1000)
    parts = [f"{delta_ms:+.0f} ms, {_range(ms_iv, '{:+.0f}', ' ms')}"]
    failed = max_ms is not None and ms_iv.low > max_ms
    pct_iv = percent_bounds(draws, confidence) if max_pct is not None else None
    if max_pct is not None and change is not None and pct_iv is not None:
        parts.append(f"{change:+.1f}%, {_range(pct_iv, '{:+.1f}', '%')}")
        failed = failed or pct_iv.low > max_pct
    text = f"{head} ({'; '.join(parts)}); limit {limit}: {_verdict(failed, beyond_point)}"
    fewest = min(len(latencies_before_s), len(latencies_after_s))
    if fewest < FEW_TRIALS:
        text += (
            f"; few trials ({len(latencies_before_s)} → {len(latencies_after_s)}): "
            "the P95 is near the slowest one, the bounds are wide"
        )
    return SpendVerdict(failed, text)


def cost_verdict(
    before: float,
    after: float,
    tasks: Sequence[PairedTotals],
    *,
    max_pct: float | None,
    max_usd: float | None,
    confidence: float,
) -> SpendVerdict | None:
    """Cost per trial `before` → `after` against the limits, with the paired bootstrap
    bounds over `tasks`; None when only a relative limit is set and the baseline is 0."""
    head = f"${before:.4f} → ${after:.4f} per trial"
    if max_usd is None and before <= 0 < after:
        return None
    change = (after - before) / before * 100 if before > 0 else None
    limit = _limits((max_pct, "{:g}%"), (max_usd, "${:g}"))
    beyond_point = (max_usd is not None and after - before > max_usd) or (
        max_pct is not None and change is not None and change > max_pct
    )
    costed = sum(1 for t in tasks if t.before_trials or t.after_trials)
    draws = paired_mean_draws(tasks, DRAWS) if costed >= 2 else []
    if not draws:
        shown = [f"{change:+.1f}%"] if max_pct is not None and change is not None else []
        shown += [_usd(after - before)] if max_usd is not None else []
        inner = f" ({', '.join(shown)})" if shown else ""
        text = (
            f"{head}{inner}; limit {limit}: "
            f"{'exceeded' if beyond_point else 'within the limit'}; {costed} task(s) "
            "with a cost: no bounds (they resample tasks), the figures judged alone"
        )
        return SpendVerdict(beyond_point, text)
    parts: list[str] = []
    failed = False
    pct_iv = percent_bounds(draws, confidence) if max_pct is not None else None
    if max_pct is not None and change is not None and pct_iv is not None:
        parts.append(f"{change:+.1f}%, {_range(pct_iv, '{:+.1f}', '%')}")
        failed = pct_iv.low > max_pct
    if max_usd is not None:
        usd_iv = change_bounds(draws, confidence)
        low, high = _usd(usd_iv.low), _usd(usd_iv.high)
        parts.append(f"{_usd(after - before)}, {usd_iv.label} {low}…{high}")
        failed = failed or usd_iv.low > max_usd
    inner = f" ({'; '.join(parts)})" if parts else ""
    return SpendVerdict(failed, f"{head}{inner}; limit {limit}: {_verdict(failed, beyond_point)}")


def _compared(ctx: GateContext) -> dict[str, Any]:
    """Over how many blocking tasks a baseline-wide rule was judged (RuleResult fields)."""
    of = len(ctx.blocking)
    if ctx.comparison is None:
        return {"judged": 0, "of": of, "left_out": ""}
    judged = len(ctx.comparison.tasks)
    left = f"{of - judged} not in the baseline" if of > judged else ""
    return {"judged": judged, "of": of, "left_out": left}


def latency(ctx: GateContext) -> Outcome:
    """The pooled P95 latency may not grow beyond the limit (ms and/or %) with confidence."""
    ms, pct = ctx.config.max_p95_latency_increase_ms, ctx.config.max_p95_latency_increase_pct
    if ms is None and pct is None:
        return Outcome()
    name = "P95 latency increase"
    c = ctx.comparison
    counts = _compared(ctx)
    if c is None:
        return Outcome([RuleResult(name, "skipped", "no baseline", **counts)])
    before, after = c.latency_p95_before_s, c.latency_p95_after_s
    if before is None or after is None:
        return Outcome([RuleResult(name, "skipped", "no latencies on one side", **counts)])
    spend = c.spend
    verdict = latency_verdict(
        before,
        after,
        spend.latencies_before_s if spend else (),
        spend.latencies_after_s if spend else (),
        max_ms=ms,
        max_pct=pct,
        confidence=ctx.config.spend_confidence,
    )
    status = "failed" if verdict.failed else "passed"
    return Outcome([RuleResult(name, status, verdict.message, **counts)])


def cost(ctx: GateContext) -> Outcome:
    """The mean cost per trial may not grow beyond the limit (% and/or $) with confidence."""
    pct, usd = ctx.config.max_cost_increase_pct, ctx.config.max_cost_increase_usd
    if pct is None and usd is None:
        return Outcome()
    name = "cost increase"
    c = ctx.comparison
    counts = _compared(ctx)
    if c is None:
        return Outcome([RuleResult(name, "skipped", "no baseline", **counts)])
    before, after = c.cost_per_trial_before, c.cost_per_trial_after
    if before is None or after is None:
        return Outcome([RuleResult(name, "skipped", "no costs on one side", **counts)])
    verdict = cost_verdict(
        before,
        after,
        c.spend.costs if c.spend else (),
        max_pct=pct,
        max_usd=usd,
        confidence=ctx.config.spend_confidence,
    )
    if verdict is None:
        why = (
            f"${before:.4f} → ${after:.4f} per trial: baseline cost is 0, a relative limit "
            "cannot apply"
        )
        return Outcome([RuleResult(name, "skipped", why, **counts)])
    status = "failed" if verdict.failed else "passed"
    return Outcome([RuleResult(name, status, verdict.message, **counts)])
