"""The suite test's power under a uniform drop: exact in small suites, approximated beyond.

Exact: the stratified test (`_suite_significance`) conditions on every task's margin m (its
successes on both sides), so its power is a sum over margin vectors: per vector, the
critical total from the integer null law (as the test computes it) and the chance of
a total at or below it under the drop. That sum has Π(2k + 1) terms, so it is taken only
while at most `EXACT_MARGINS` vectors carry mass (one task always: Fisher's test).

Approximate, beyond that: the Mantel–Haenszel score Σ(after − before)/2 against its
conditional null variance, with the continuity correction the exact test's lattice
implies (none for mid-p). Against the exact test it is within 0.03 from 5 tasks on
(tests/tracking/test_tracking_power.py; `python bench/power_speed.py` prints the grid).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist
from typing import TypeVar

from trialrun.tracking._stats import binomial_pmf, fisher_power

Number = TypeVar("Number", int, float)
MarginLaw = tuple[int, tuple[float, ...]]  # (m, P(c_a = low + i and c_b = m − c_a))

EXACT_MARGINS = 600  # margin vectors the exact sum may visit per evaluation
NEGLIGIBLE = 1e-13  # a margin this unlikely is left out of the exact sum


def suite_power(
    rates: list[float], k: list[int], drop: float, alpha: float, method: str = "exact"
) -> float:
    """Power of the stratified test (one-sided, `method`) when every task's rate falls by
    `drop` (a task below it to 0), with k[i] trials on each side of task i."""
    strata = [(rate, n) for rate, n in zip(rates, k, strict=True) if n > 0]
    if not strata:
        return 0.0
    if len(strata) == 1 and method == "exact":
        rate, n = strata[0]
        return fisher_power(rate, max(rate - drop, 0.0), n, alpha)
    margins = _margins(strata, drop)
    if margins is not None:
        return _exact_power(tuple(n for _, n in strata), margins, alpha, method)
    return _approximate_power(strata, drop, alpha, method)


def suite_power_is_exact(rates: list[float], k: list[int], drop: float, method: str) -> bool:
    """Whether `suite_power` sums exactly for these inputs (else it approximates)."""
    strata = [(rate, n) for rate, n in zip(rates, k, strict=True) if n > 0]
    if len(strata) == 1 and method == "exact":
        return True
    return bool(strata) and _margins(strata, drop) is not None


def _margins(strata: list[tuple[float, int]], drop: float) -> list[tuple[MarginLaw, ...]] | None:
    """Each task's margin laws, or None when the exact sum would visit too many vectors
    (found as soon as the running product passes the budget)."""
    margins, vectors = [], 1
    for rate, n in strata:
        laws = _margin_laws(n, rate, max(rate - drop, 0.0))
        vectors *= len(laws)
        if vectors > EXACT_MARGINS:
            return None
        margins.append(laws)
    return margins


@lru_cache(maxsize=4096)
def _margin_laws(n: int, before: float, after: float) -> tuple[MarginLaw, ...]:
    """Per margin m with mass: the joint chance of each after-count under the drop."""
    p_before, p_after = binomial_pmf(n, before), binomial_pmf(n, after)
    laws = []
    for m in range(2 * n + 1):
        low, high = max(0, m - n), min(m, n)
        weights = tuple(p_before[m - x] * p_after[x] for x in range(low, high + 1))
        if sum(weights) > NEGLIGIBLE:
            laws.append((m, weights))
    return tuple(laws)


@lru_cache(maxsize=8192)
def _null_law(n: int, m: int) -> tuple[int, ...]:
    """The hypergeometric law of the after-count given margin m, as integer weights."""
    low, high = max(0, m - n), min(m, n)
    return tuple(math.comb(m, x) * math.comb(2 * n - m, n - x) for x in range(low, high + 1))


def _convolve(a: Sequence[Number], b: Sequence[Number]) -> list[Number]:
    """Integers stay integers (the null law's exact weights), floats stay floats."""
    out: list[Number] = [a[0] * 0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


@lru_cache(maxsize=65536)
def _critical(ns: tuple[int, ...], ms: tuple[int, ...], alpha: float, method: str) -> int:
    """The largest total after-count (above the lowest possible) the test rejects, given
    the margins (−1: none); a rejection also needs the suite to have dropped."""
    weights: list[int] = [1]
    for n, m in zip(ns, ms, strict=True):
        weights = _convolve(weights, _null_law(n, m))
    denom = math.prod(math.comb(2 * n, n) for n in ns)
    offset = sum(max(0, m - n) for n, m in zip(ns, ms, strict=True))
    dropped_max = (sum(ms) - 1) // 2 - offset  # after < before: 2T < M
    below, last = 0, -1
    for index, at in enumerate(weights[: dropped_max + 1]):
        numerator = Fraction(below + at) if method == "exact" else Fraction(2 * below + at, 2)
        if float(numerator / denom) > alpha:
            break
        below += at
        last = index
    return last


def _exact_power(
    ns: tuple[int, ...], margins: list[tuple[MarginLaw, ...]], alpha: float, method: str
) -> float:
    power = 0.0
    for combo in itertools.product(*margins):
        last = _critical(ns, tuple(m for m, _ in combo), alpha, method)
        if last < 0:
            continue
        law: list[float] = [1.0]
        for _, weights in combo:
            law = _convolve(law, weights)
        power += sum(law[: last + 1])
    return power


def _approximate_power(
    strata: list[tuple[float, int]], drop: float, alpha: float, method: str
) -> float:
    mean = spread = null_variance = 0.0
    for rate, n in strata:
        after = max(rate - drop, 0.0)
        noise = rate * (1 - rate) + after * (1 - after)
        mean += n * (after - rate) / 2
        spread += n * noise / 4
        # E[m(2n − m)] / (4(2n − 1)), m = the task's successes on both sides
        m_mean = n * (rate + after)
        m_square = n * noise + m_mean * m_mean
        null_variance += (2 * n * m_mean - m_square) / (4 * (2 * n - 1)) if n > 1 else 0.0
    if null_variance <= 0.0 or spread <= 0.0:
        return 0.0
    z = NormalDist().inv_cdf(1 - alpha)
    correction = 0.5 if method == "exact" else 0.0  # mid-p has none
    edge = -z * math.sqrt(null_variance) - correction
    return NormalDist().cdf((edge - mean) / math.sqrt(spread))
