"""The per-task regression test of a comparison, on plain counts.

A fraction (passed/n, or solved/solve_n) that dropped gets the one-sided Fisher exact
test; the task is a regression when either test gives p ≤ alpha. `compare` labels its
tasks with it and `--early-stop` asks it whether the trials still to run could change
the answer, so both read the same test.
"""

from __future__ import annotations

from collections.abc import Iterable

from trialrun.tracking._stats import fisher_one_sided


def dropped_p_value(c_before: int, n_before: int, c_after: int, n_after: int) -> float | None:
    """The one-sided Fisher p-value when `c_after/n_after` < `c_before/n_before`; None when
    the fraction did not drop or a side has no trials."""
    if not n_before or not n_after or c_after / n_after >= c_before / n_before:
        return None
    return fisher_one_sided(c_before, n_before, c_after, n_after)


def regressed(p_values: Iterable[float | None], alpha: float) -> bool:
    """A regression: some dropped fraction's p-value is at most `alpha`."""
    return any(p is not None and p <= alpha for p in p_values)
