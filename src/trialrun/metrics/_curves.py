"""pass^k and pass@k as curves over k = 1…n, with an exact 95 % interval band.

The curve is the exact unbiased estimator at every k (`pass_hat_k`, `pass_at_k`). The
band is exact too: the Clopper–Pearson interval [p_lo, p_hi] for the per-trial success
chance p, carried through the quantity each estimator estimates (p^k for pass^k,
1 − (1 − p)^k for pass@k, both monotone in p). Unlike a bootstrap over trials it does not
collapse to a point when every trial succeeded (3/3 still leaves p^10 uncertain).

Across tasks (`mean_curve`) a point is the mean over the tasks, up to the smallest n
among them, and the band is the mean of the tasks' exact bands: how sure each task's
figure is, on average. It holds the mean whenever every task's band holds its task, and
it is wider than an interval of the mean would be (it does not shrink as tasks are added,
nor collapse when every task failed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from trialrun.metrics._estimators import pass_at_k, pass_hat_k


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One k of a curve: estimate and 95 % band for pass^k and pass@k."""

    k: int
    pass_hat: float
    pass_hat_lo: float
    pass_hat_hi: float
    pass_at: float
    pass_at_lo: float
    pass_at_hi: float
    tasks: int = 1  # tasks behind the point (mean curves)

    def as_dict(self) -> dict[str, float | int]:
        return {
            "k": self.k,
            "pass_hat": self.pass_hat,
            "pass_hat_lo": self.pass_hat_lo,
            "pass_hat_hi": self.pass_hat_hi,
            "pass_at": self.pass_at,
            "pass_at_lo": self.pass_at_lo,
            "pass_at_hi": self.pass_at_hi,
            "tasks": self.tasks,
        }


def _binom_cdf(n: int, c: int, p: float) -> float:
    """P(X <= c) for X ~ Binomial(n, p)."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 if c >= n else 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    total = 0.0
    for i in range(c + 1):
        total += math.exp(
            math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
            + i * log_p + (n - i) * log_q
        )
    return min(total, 1.0)


def _bisect(f: Callable[[float], float], want: float, increasing: bool) -> float:
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if (f(mid) < want) == increasing:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@lru_cache(maxsize=4096)
def clopper_pearson(n: int, c: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval for a success chance from c of n trials."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    alpha = 1.0 - confidence
    # lower: P(X >= c | p) = alpha/2, i.e. 1 - cdf(c-1) rises with p
    lo = 0.0 if c == 0 else _bisect(lambda p: 1.0 - _binom_cdf(n, c - 1, p), alpha / 2, True)
    # upper: P(X <= c | p) = alpha/2, falls with p
    hi = 1.0 if c == n else _bisect(lambda p: _binom_cdf(n, c, p), alpha / 2, False)
    return (lo, hi)


@lru_cache(maxsize=4096)
def _curve(n: int, c: int) -> tuple[CurvePoint, ...]:
    lo, hi = clopper_pearson(n, c)
    return tuple(
        CurvePoint(
            k=k,
            pass_hat=pass_hat_k(n, c, k),
            pass_hat_lo=lo**k,
            pass_hat_hi=hi**k,
            pass_at=pass_at_k(n, c, k),
            pass_at_lo=1.0 - (1.0 - lo) ** k,
            pass_at_hi=1.0 - (1.0 - hi) ** k,
        )
        for k in range(1, n + 1)
    )


def k_curve(n: int, c: int) -> list[CurvePoint]:
    """pass^k and pass@k for k = 1…n from c successes of n counted trials, with bands."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c!r}, n={n}")
    return list(_curve(n, c))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def mean_curve(counts: list[tuple[int, int]], max_k: int | None = None) -> list[CurvePoint]:
    """The mean over tasks of each task's curve; `counts` holds (n, c) per task.

    The curve runs to the smallest n among the tasks (every point over the same tasks;
    tasks with no counted trial are left out); the band is the mean of their exact bands.
    """
    curves = [k_curve(n, c) for n, c in counts if n > 0]
    top = min((len(cv) for cv in curves), default=0)
    if max_k is not None:
        top = min(top, max_k)
    out: list[CurvePoint] = []
    for k in range(1, top + 1):
        points = [cv[k - 1] for cv in curves]
        out.append(CurvePoint(
            k,
            _mean([p.pass_hat for p in points]),
            _mean([p.pass_hat_lo for p in points]),
            _mean([p.pass_hat_hi for p in points]),
            _mean([p.pass_at for p in points]),
            _mean([p.pass_at_lo for p in points]),
            _mean([p.pass_at_hi for p in points]),
            tasks=len(points),
        ))
    return out
