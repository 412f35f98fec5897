"""Could the trials still to run change a comparison's answer for one task?

`compare` calls a task a regression when a dropped fraction (passed/n over every finished
trial, an infra error being a failed pass; or solved/solve_n with infra errors and
undetermined trials left out) has a one-sided Fisher p-value ≤ alpha
(`_task_significance.dropped_p_value`, `regressed`). A trial still to run ends one of five
ways: an infra error (a failed pass, left out of solve), undetermined (passed, solve left
out), unsolved but passed, failed, solved. With `r` trials left, the pass side gains
exactly r trials, and the counts they can add are exactly: `dsn` counted for solve
(0..r), `ds` solved (0..dsn) and `dp` passed (ds..r: the solved ones pass, each other
trial may or may not). The answer is fixed when the test gives the same answer for every
one of them. The pass test reads dp (r + 1 tests) and the solve test (dsn, ds) over its
whole triangle (O(r²) tests, cached across calls); "never a regression" reads the tables
alone, "always" asks whether some reachable completion leaves both tests clear. More than
`MAX_OPEN` trials left: not checked (the task keeps running; checked again after each
trial).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from trialrun.tracking._task_significance import dropped_p_value, regressed

MAX_OPEN = 100  # trials left above which the answer is not checked (the task runs on)

_p_value = lru_cache(maxsize=1 << 16)(dropped_p_value)


class Counts(NamedTuple):
    """One side's counts as the comparison reads them."""

    passed: int
    n: int  # counted for pass: every finished trial (an infra error is a failed pass)
    solved: int
    solve_n: int  # counted for solve: infra errors and undetermined left out


def answer_fixed(before: Counts, after: Counts, remaining: int, alpha: float) -> bool:
    """Whether every outcome of `remaining` more trials gives `compare` the same answer
    (regression or not) for this task, `before` being its baseline entry."""
    if remaining <= 0:
        return True
    if remaining > MAX_OPEN:
        return False
    r = remaining

    def pass_reg(dp: int) -> bool:
        p = _p_value(before.passed, before.n, after.passed + dp, after.n + r)
        return regressed((p,), alpha)

    def solve_reg(dsn: int, ds: int) -> bool:
        p = _p_value(before.solved, before.solve_n, after.solved + ds, after.solve_n + dsn)
        return regressed((p,), alpha)

    passes = [pass_reg(dp) for dp in range(r + 1)]
    solves = [[solve_reg(dsn, ds) for ds in range(dsn + 1)] for dsn in range(r + 1)]
    if not any(passes) and not any(any(row) for row in solves):
        return True  # never a regression
    # always a regression, unless a completion leaves both tests clear: a clear solve
    # outcome (dsn, ds) with a clear dp in ds..r, i.e. the most passed that is clear ≥ ds
    top_passed = max((dp for dp, reg in enumerate(passes) if not reg), default=-1)
    for row in solves:
        if any(not reg and top_passed >= ds for ds, reg in enumerate(row)):
            return False
    return True
