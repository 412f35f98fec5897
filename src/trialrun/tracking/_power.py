"""Power before the run: what a planned run can detect, per task and for the suite.

Per task the figures are exact (the one-sided Fisher test's power summed over both
binomials, `fisher_power`). For the suite (the stratified test of `_suite_test`) they are
a seeded Monte Carlo estimate: `draws` simulated before/after runs per figure, so the
same inputs always give the same plan.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from trialrun.tracking._stats import fisher_power, smallest_enough, trials_for_drop
from trialrun.tracking._suite_test import stratified_p_value

POWER = 0.80
STEP = 0.01  # drops are searched in whole points
SUITE_DRAWS = 400
K_MAX = 64  # the suite k search stops here (None: more is needed)


def task_min_drop(rate: float, k: int, alpha: float, power: float = POWER) -> float | None:
    """The smallest drop (whole points) a task at `rate` with k trials per side detects
    with `power` (exact); None when even a drop to 0 is not detected."""
    for points in range(1, int(round(rate * 100)) + 1):
        drop = points * STEP
        if fisher_power(rate, max(rate - drop, 0.0), k, alpha) >= power:
            return drop
    return None


def suite_power(
    rates: list[float],
    k: list[int],
    drop: float,
    alpha: float,
    method: str = "exact",
    draws: int = SUITE_DRAWS,
    seed: int = 14,
) -> float:
    """Monte Carlo power of the suite test for a uniform `drop` (seeded, reproducible)."""
    rng = random.Random(seed)
    hits = 0
    for _ in range(draws):
        strata = []
        for rate, n in zip(rates, k, strict=True):
            after = max(rate - drop, 0.0)
            c_b = sum(rng.random() < rate for _ in range(n))
            c_a = sum(rng.random() < after for _ in range(n))
            strata.append((c_b, n, c_a, n))
        dropped = sum(s[2] for s in strata) < sum(s[0] for s in strata)
        hits += dropped and stratified_p_value(strata, method) <= alpha
    return hits / draws


def suite_min_drop(
    rates: list[float], k: list[int], alpha: float, method: str = "exact"
) -> float | None:
    """The smallest uniform drop (whole points) the suite test detects with 80 % power."""
    top = int(round(min(rates) * 100)) if rates else 0
    lo, hi = 0, top  # power(lo) < POWER assumed; find the smallest enough
    if hi == 0 or suite_power(rates, k, hi * STEP, alpha, method) < POWER:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if suite_power(rates, k, mid * STEP, alpha, method) >= POWER:
            hi = mid
        else:
            lo = mid
    return hi * STEP


def suite_k_for_drop(
    rates: list[float], drop: float, alpha: float, method: str = "exact"
) -> int | None:
    """The smallest k (every task) at which the suite test detects a uniform `drop`."""
    if not rates or min(rates) < drop - 1e-9:
        return None

    def enough(k: int) -> bool:
        return suite_power(rates, [k] * len(rates), drop, alpha, method) >= POWER

    return smallest_enough(enough, K_MAX)


@dataclass(slots=True)
class TaskPlan:
    task_id: str
    k: int
    rate: float
    rate_source: str  # "baseline" | "assumed"
    min_drop: float | None
    k_for_10: int | None
    k_for_20: int | None


@dataclass(slots=True)
class Plan:
    alpha: float
    method: str
    tasks: list[TaskPlan]
    suite_min_drop: float | None
    suite_k_for_10: int | None
    suite_k_for_20: int | None

    def suite_line(self) -> str:
        ks = sorted({t.k for t in self.tasks})
        k_text = f"k = {ks[0]}" if len(ks) == 1 else f"k = {ks[0]}–{ks[-1]}"
        drop = (
            f"a uniform drop of {self.suite_min_drop * 100:.0f} points"
            if self.suite_min_drop is not None
            else "no uniform drop"
        )
        return (
            f"power: {len(self.tasks)} task(s) at {k_text} can detect {drop} across the "
            f"suite with 80% power (stratified {self.method} test, α = {self.alpha:g}, "
            f"simulated)"
        )

    def to_dict(self) -> dict[str, object]:
        from dataclasses import asdict

        out = asdict(self)
        out["suite_method"] = f"seeded Monte Carlo, {SUITE_DRAWS} draws per figure"
        out["task_method"] = "exact Fisher power"
        return out


def plan(
    tasks: list[tuple[str, int, float, str]],
    alpha: float,
    method: str = "exact",
) -> Plan:
    """A plan from (task_id, k, rate, rate_source) rows."""

    rows = [
        TaskPlan(
            tid,
            k,
            rate,
            source,
            task_min_drop(rate, k, alpha),
            trials_for_drop(rate, 0.10, POWER, alpha, 200),
            trials_for_drop(rate, 0.20, POWER, alpha, 200),
        )
        for tid, k, rate, source in tasks
    ]
    rates, ks = [t.rate for t in rows], [t.k for t in rows]
    return Plan(
        alpha,
        method,
        rows,
        suite_min_drop(rates, ks, alpha, method) if rows else None,
        suite_k_for_drop(rates, 0.10, alpha, method) if rows else None,
        suite_k_for_drop(rates, 0.20, alpha, method) if rows else None,
    )


def suite_power_line(tasks: list[tuple[int, float]], alpha: float, method: str = "exact") -> str:
    """The one line `trialrun run` prints at its start: the smallest uniform drop the
    suite can show with 80% power, from (k, rate) per task."""
    ks, rates = [k for k, _ in tasks], [rate for _, rate in tasks]
    drop = suite_min_drop(rates, ks, alpha, method) if tasks else None
    k_text = f"k = {min(ks)}" if len(set(ks)) == 1 else f"k = {min(ks)}–{max(ks)}"
    what = f"a uniform drop of {drop * 100:.0f} points" if drop is not None else "no uniform drop"
    return (
        f"power: {len(tasks)} task(s) at {k_text} can detect {what} across the suite with 80% "
        f"power (stratified {method} test, α = {alpha:g}, simulated; `trialrun plan` for more)"
    )
