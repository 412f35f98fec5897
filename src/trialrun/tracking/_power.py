"""Power before the run: what a planned run can detect, per task and for the suite.

Per task the figures are exact: the one-sided Fisher test's power, summed over its
rejection region (`fisher_power`, the region cached per trial count). For the suite
(the stratified test) they are exact in small suites and a normal approximation beyond
(`_suite_power`).

Tasks with a 0 % baseline rate have no drop to detect: they are set aside and named, and
the figures are for the others. A uniform drop of d points lowers every task by d, a task
below d to 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

from trialrun.tracking._stats import fisher_power, smallest_enough, trials_for_drop
from trialrun.tracking._suite_power import suite_power, suite_power_is_exact

POWER = 0.80
STEP = 0.01  # drops are searched in whole points
K_MAX = 64  # the suite k search stops here (None: more is needed)
SUITE_METHOD = (
    "exact in small suites (at most 600 margin vectors), else a normal approximation of "
    "the stratified test (Mantel–Haenszel score, continuity-corrected)"
)
TASK_METHOD = "exact Fisher power"
NO_DROP = "0% in baseline: no drop to detect"


@lru_cache(maxsize=4096)
def _task_min_drop(rate: float, k: int, alpha: float, power: float) -> float | None:
    top = int(round(rate * 100))

    def enough(points: int) -> bool:
        return fisher_power(rate, max(rate - points * STEP, 0.0), k, alpha) >= power

    if top < 1 or not enough(top):
        return None
    lo, hi = 0, top  # power grows with the drop: bisect for the first points enough
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi * STEP


def task_min_drop(rate: float, k: int, alpha: float, power: float = POWER) -> float | None:
    """The smallest drop (whole points) a task at `rate` with k trials per side detects
    with `power` (exact); None when even a drop to 0 is not detected."""
    return _task_min_drop(round(rate, 6), k, alpha, power)


def suite_min_drop(
    rates: list[float], k: list[int], alpha: float, method: str = "exact"
) -> float | None:
    """The smallest uniform drop (whole points) the suite test detects with 80 % power."""
    top = int(round(max(rates) * 100)) if rates else 0
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
    if not rates or max(rates) < drop - 1e-9:
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


@dataclass(slots=True, frozen=True)
class SetAside:
    """A task left out of the figures, and why."""

    task_id: str
    rate: float
    reason: str

    def describe(self) -> str:
        return f"{self.task_id} ({self.reason})"


@dataclass(slots=True)
class Plan:
    alpha: float
    method: str
    tasks: list[TaskPlan]
    suite_min_drop: float | None
    suite_k_for_10: int | None
    suite_k_for_20: int | None
    set_aside: list[SetAside]
    suite_exact: bool  # the suite's smallest drop is exact (else a normal approximation)

    def suite_line(self) -> str:
        if not self.tasks:
            return "power: no task has a drop to detect (every task is set aside)"
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
            f"{_figure(self.suite_exact)})"
        )

    def set_aside_line(self) -> str | None:
        if not self.set_aside:
            return None
        return "set aside: " + ", ".join(s.describe() for s in self.set_aside)

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["suite_method"] = SUITE_METHOD
        out["task_method"] = TASK_METHOD
        return out


def set_aside_reason(rate: float) -> str | None:
    """Why a task at `rate` cannot take part in a drop's power (None: it can)."""
    return NO_DROP if rate <= 0.0 else None


def plan(
    tasks: list[tuple[str, int, float, str]],
    alpha: float,
    method: str = "exact",
) -> Plan:
    """A plan from (task_id, k, rate, rate_source) rows."""
    rows: list[TaskPlan] = []
    aside: list[SetAside] = []
    for tid, k, rate, source in tasks:
        reason = set_aside_reason(rate)
        if reason is not None:
            aside.append(SetAside(tid, rate, reason))
            continue
        rows.append(
            TaskPlan(
                tid,
                k,
                rate,
                source,
                task_min_drop(rate, k, alpha),
                trials_for_drop(rate, 0.10, POWER, alpha, 200),
                trials_for_drop(rate, 0.20, POWER, alpha, 200),
            )
        )
    rates, ks = [t.rate for t in rows], [t.k for t in rows]
    drop = suite_min_drop(rates, ks, alpha, method) if rows else None
    return Plan(
        alpha,
        method,
        rows,
        drop,
        suite_k_for_drop(rates, 0.10, alpha, method) if rows else None,
        suite_k_for_drop(rates, 0.20, alpha, method) if rows else None,
        aside,
        bool(rows) and suite_power_is_exact(rates, ks, drop or max(rates), method),
    )


def _figure(exact: bool) -> str:
    return "exact" if exact else "normal approximation"


def suite_power_line(tasks: list[tuple[int, float]], alpha: float, method: str = "exact") -> str:
    """The one line `trialrun run` prints at its start: the smallest uniform drop the
    suite can show with 80% power, from (k, rate) per task."""
    kept = [(k, rate) for k, rate in tasks if set_aside_reason(rate) is None]
    ks, rates = [k for k, _ in kept], [rate for _, rate in kept]
    if not kept:
        return f"power: none of {len(tasks)} task(s) has a drop to detect (0% rates)"
    drop = suite_min_drop(rates, ks, alpha, method)
    exact = suite_power_is_exact(rates, ks, drop or max(rates), method)
    k_text = f"k = {min(ks)}" if len(set(ks)) == 1 else f"k = {min(ks)}–{max(ks)}"
    what = f"a uniform drop of {drop * 100:.0f} points" if drop is not None else "no uniform drop"
    aside = f" ({len(tasks) - len(kept)} set aside at 0%)" if len(kept) < len(tasks) else ""
    return (
        f"power: {len(kept)} task(s){aside} at {k_text} can detect {what} across the suite "
        f"with 80% power (stratified {method} test, α = {alpha:g}, {_figure(exact)}; "
        f"`trialrun plan` for more)"
    )
