"""Could the trials still to run change a comparison's answer for one task?

`compare` calls a task a regression when a dropped fraction (passed/n, or solved/solve_n
with undetermined trials left out; infra errors are never counted) has a one-sided Fisher
p-value ≤ alpha (`trialrun.tracking.dropped_p_value`, `regressed`). A trial still to run
ends one of five ways: an infra error (not counted), undetermined (passed, solve left
out), unsolved but passed, failed, solved. With `r` trials left, the counts they can add
are exactly: `dn` counted (0..r), of which `dsn` counted for solve (0..dn), `ds` solved
(0..dsn) and `dp` passed (dn - dsn + ds..dn). The answer is fixed when the test gives the
same answer for every one of them. The pass test reads (dn, dp) and the solve test
(dsn, ds), each over its whole triangle, so each is tabled once (O(r²) tests, cached
across calls); "never a regression" reads the tables alone, "always" asks whether some
reachable completion leaves both tests clear. More than `MAX_OPEN` trials left: not
checked (the task keeps running; checked again after each trial).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from trialrun.tracking import dropped_p_value, regressed

MAX_OPEN = 100  # trials left above which the answer is not checked (the task runs on)

_p_value = lru_cache(maxsize=1 << 16)(dropped_p_value)


class Counts(NamedTuple):
    """One side's counts as the comparison reads them."""

    passed: int
    n: int  # counted trials: infra errors left out
    solved: int
    solve_n: int  # counted for solve: undetermined left out too


def answer_fixed(before: Counts, after: Counts, remaining: int, alpha: float) -> bool:
    """Whether every outcome of `remaining` more trials gives `compare` the same answer
    (regression or not) for this task, `before` being its baseline entry."""
    if remaining <= 0:
        return True
    if remaining > MAX_OPEN:
        return False
    r = remaining

    def pass_reg(dn: int, dp: int) -> bool:
        p = _p_value(before.passed, before.n, after.passed + dp, after.n + dn)
        return regressed((p,), alpha)

    def solve_reg(dsn: int, ds: int) -> bool:
        p = _p_value(before.solved, before.solve_n, after.solved + ds, after.solve_n + dsn)
        return regressed((p,), alpha)

    passes = [[pass_reg(dn, dp) for dp in range(dn + 1)] for dn in range(r + 1)]
    solves = [[solve_reg(dsn, ds) for ds in range(dsn + 1)] for dsn in range(r + 1)]
    if not any(any(row) for row in passes) and not any(any(row) for row in solves):
        return True  # never a regression
    # always a regression, unless a completion leaves both tests clear: for dn counted, the
    # most passed that is clear, and for dsn, the most unsolved (dsn - ds) that is clear
    top_passed = [max((dp for dp, reg in enumerate(row) if not reg), default=-1) for row in passes]
    most_unsolved = [
        max((dsn - ds for ds, reg in enumerate(row) if not reg), default=-1)
        for dsn, row in enumerate(solves)
    ]
    for dn in range(r + 1):
        if top_passed[dn] < 0:
            continue
        for dsn in range(dn + 1):
            g = most_unsolved[dsn]
            if g >= 0 and top_passed[dn] >= dn - g:  # dp from dn - dsn + ds up to dn is clear
                return False
    return True
