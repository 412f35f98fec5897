"""Exact small-sample statistics for regression checks: Fisher's one-sided test and its power.

Why Fisher's exact test (and not a Beta-Binomial posterior): it needs no prior, its p-value
is exact for any counts (computed with integer binomial coefficients, no scipy), and with
k = 3 trials per task it is honest about how little a single failure proves: 3/3 → 2/3
gives p = 0.5, so a lone flake is never called a regression.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache


def fisher_one_sided(c_before: int, n_before: int, c_after: int, n_after: int) -> float:
    """P-value that the success rate dropped from `c_before/n_before` to `c_after/n_after`.

    With the 2×2 table's margins fixed, the successes in the `after` row follow a
    hypergeometric law; the p-value is P(X ≤ c_after), summed exactly.
    """
    for name, value in (
        ("c_before", c_before),
        ("n_before", n_before),
        ("c_after", c_after),
        ("n_after", n_after),
    ):
        if value < 0:
            raise ValueError(f"{name} must be ≥ 0, got {value}")
    if c_before > n_before or c_after > n_after:
        raise ValueError("successes cannot exceed trials")
    if n_before == 0 or n_after == 0:
        return 1.0
    total = n_before + n_after
    successes = c_before + c_after
    low = max(0, n_after - (total - successes))
    numerator = sum(
        math.comb(successes, x) * math.comb(total - successes, n_after - x)
        for x in range(low, c_after + 1)
    )
    return float(Fraction(numerator, math.comb(total, n_after)))


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


@lru_cache(maxsize=64)
def _log_factorials(n: int) -> tuple[float, ...]:
    return tuple(math.lgamma(i + 1) for i in range(n + 1))


@lru_cache(maxsize=4096)
def binomial_pmf(n: int, p: float) -> tuple[float, ...]:
    if p <= 0.0:
        return (1.0,) + (0.0,) * n
    if p >= 1.0:
        return (0.0,) * n + (1.0,)
    lf, lp, lq = _log_factorials(n), math.log(p), math.log1p(-p)
    return tuple(math.exp(lf[n] - lf[x] - lf[n - x] + x * lp + (n - x) * lq) for x in range(n + 1))


@lru_cache(maxsize=4096)
def _binom_cdf(n: int, p: float) -> tuple[float, ...]:
    return tuple(itertools.accumulate(binomial_pmf(n, p)))


@lru_cache(maxsize=512)
def rejection_bounds(n: int, alpha: float) -> tuple[int, ...]:
    """The one-sided Fisher test's rejection region at `n` trials per side, per before-count.

    `bounds[c0]` is the largest after-count c1 the test rejects at `alpha` (−1: none). The
    region is the prefix c1 ≤ bounds[c0] (Fisher's test meets Barnard's convexity condition;
    tests/tracking/test_tracking_power.py checks it against `fisher_one_sided`), so the
    power is one binomial CDF per before-count. Computed once per (n, alpha) in O(n).
    """
    limit = alpha * (1 + 1e-12)
    lf = _log_factorials(2 * n)

    def pmf(total: int, x: int) -> float:
        """P(X = x), X the after-successes when `total` successes in all (hypergeometric)."""
        if x < max(0, total - n) or x > min(n, total):
            return 0.0
        return math.exp(
            lf[total] - lf[x] - lf[total - x] + lf[2 * n - total] - lf[n - x]
            - lf[n - total + x] + 2 * lf[n] - lf[2 * n]
        )  # fmt: skip

    # largest[K]: the largest after-count rejected when K successes in all (−1: none).
    # One more success turns a random failure into a success: X grows by one with chance
    # (n − X)/(2n − K), so P(X ≤ x) at K + 1 is P(X ≤ x) − P(X = x)(n − x)/(2n − K) at K,
    # and the boundary x moves a step or two per K.
    largest: list[int] = []
    x, cdf = -1, 0.0
    for total in range(2 * n + 1):
        low, high = max(0, total - n), min(n, total)
        if total and x >= 0:
            cdf -= pmf(total - 1, x) * (n - x) / (2 * n - total + 1)
        if x < low:
            x, cdf = low - 1, 0.0
        while x < high and cdf + pmf(total, x + 1) <= limit:
            x += 1
            cdf += pmf(total, x)
        while x >= low and cdf > limit:
            cdf -= pmf(total, x)
            x -= 1
        largest.append(x)
    # the bound grows with the before-count (more before-successes, more evidence)
    bounds, c1 = [], -1
    for c0 in range(n + 1):
        while c1 < n and c1 + 1 <= largest[c0 + c1 + 1]:
            c1 += 1
        while c1 >= 0 and c1 > largest[c0 + c1]:
            c1 -= 1
        bounds.append(c1)
    return tuple(bounds)


def fisher_power(p_before: float, p_after: float, n: int, alpha: float = 0.05) -> float:
    """Exact power of the one-sided Fisher test with `n` trials on each side: the chance
    of its rejection region, summed over the before-binomial."""
    if n <= 0:
        return 0.0
    before, after = binomial_pmf(n, p_before), _binom_cdf(n, p_after)
    return sum(
        w0 * after[bound]
        for w0, bound in zip(before, rejection_bounds(n, alpha), strict=True)
        if bound >= 0
    )


def normal_trials_for_drop(
    p_before: float, drop: float = 0.2, power: float = 0.8, alpha: float = 0.05
) -> int:
    """The classic two-proportion normal approximation (a starting point for the search)."""
    p_after = max(p_before - drop, 0.0)
    z_a = _z(1 - alpha)
    z_b = _z(power)
    mean = (p_before + p_after) / 2
    num = z_a * math.sqrt(2 * mean * (1 - mean)) + z_b * math.sqrt(
        p_before * (1 - p_before) + p_after * (1 - p_after)
    )
    return max(2, math.ceil((num / drop) ** 2))


def _z(q: float) -> float:
    """Standard normal quantile (bisection on erf; precise enough for sample sizes)."""
    lo, hi = -10.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@lru_cache(maxsize=256)
def _trials_for_drop(
    p_before: float, drop: float, power: float, alpha: float, n_max: int
) -> int | None:
    if p_before - drop < -1e-9:
        return None
    p_after = max(p_before - drop, 0.0)

    def enough(n: int) -> bool:
        return fisher_power(p_before, p_after, n, alpha) >= power

    guess = normal_trials_for_drop(p_before, drop, power, alpha)
    lo = max(1, guess // 2)
    while lo > 1 and enough(lo):
        lo //= 2
    return smallest_enough(enough, n_max, lo, max(lo + 1, guess))


def smallest_enough(
    enough: Callable[[int], bool], n_max: int, lo: int = 0, hi: int = 1
) -> int | None:
    """The smallest n ≤ n_max with `enough(n)` (monotone), from a `lo` that is not enough:
    `hi` doubles until it is, then bisection. None when even n_max is not enough."""
    while not enough(hi):
        if hi >= n_max:
            return None
        lo, hi = hi, min(hi * 2, n_max)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid
    return hi if hi <= n_max else None


def trials_for_drop(
    p_before: float,
    drop: float = 0.2,
    power: float = 0.8,
    alpha: float = 0.05,
    n_max: int = 1000,
) -> int | None:
    """Trials per side so the exact one-sided Fisher test detects a `drop` with `power`.

    The exact power (summed over both binomials) is searched by bisection between a size
    that is too small and one that is enough, starting from the normal approximation.
    None when the drop is impossible (rate below `drop`) or needs more than `n_max`.
    """
    return _trials_for_drop(round(p_before, 3), drop, power, alpha, n_max)
