"""A suite-level exact test: one-sided, stratified by task (each task a 2×2 table).

The exact conditional test of a common odds ratio: with every task's margins fixed, the
after-row successes of each task follow a hypergeometric law, so the total T of after
successes is the convolution of those laws. The p-value of a drop is P(T ≤ t_obs),
computed with integers (no floating error); `mid-p` subtracts half of P(T = t_obs),
which keeps false alarms near α instead of far below it at small k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from trialrun.tracking._lower_tail import Law, exact_tail, lower_tail, support_size

METHODS = ("exact", "mid-p")

Stratum = tuple[int, int, int, int]  # (c_before, n_before, c_after, n_after)
EXACT_UP_TO = 1000  # values of the total T below which the integers are convolved as they are


def stratified_p_value(strata: list[Stratum], method: str = "exact") -> float:
    """P-value that the success rate dropped across `strata` (1.0 when none is informative).

    A stratum with an empty side carries no information and is left out. Up to
    `EXACT_UP_TO` values of T the integers are convolved as they are; past it the same
    float comes from `lower_tail` (correctly rounded, in time near linear in the trials).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    laws: list[Law] = []
    # one law for every stratum of the same margins (10,000 tasks of k = 10 have a few
    # dozen): `lower_tail` then reads each once (see `_attempt`)
    shared: dict[tuple[int, int, int], Law] = {}
    offset = observed = 0
    for c_b, n_b, c_a, n_a in strata:
        if min(c_b, n_b, c_a, n_a) < 0 or c_b > n_b or c_a > n_a:
            raise ValueError(f"bad counts {(c_b, n_b, c_a, n_a)}")
        if n_b == 0 or n_a == 0:
            continue
        total, succ = n_b + n_a, c_b + c_a
        low, high = max(0, n_a - (total - succ)), min(succ, n_a)
        law = shared.get((total, succ, n_a))
        if law is None:
            pmf = [math.comb(succ, x) * math.comb(total - succ, n_a - x)
                   for x in range(low, high + 1)]
            law = shared[(total, succ, n_a)] = (pmf, math.comb(total, n_a))
        laws.append(law)
        offset += low
        observed += c_a
    half_at = method == "mid-p"
    if support_size(laws) <= EXACT_UP_TO:
        return exact_tail(laws, observed - offset, half_at)
    return lower_tail(laws, observed - offset, half_at)


@dataclass(slots=True)
class SuiteTest:
    """The stratified test over every task both sides share, for one metric."""

    metric: str  # "solve" | "pass"
    p_value: float
    method: str
    tasks: int
    trials_before: int
    trials_after: int
    successes_before: int
    successes_after: int
    verdict: str  # "regression" | "within noise" | "no drop"

    def describe(self) -> str:
        p = f"{self.p_value:.2g}" if self.p_value < 0.01 else f"{self.p_value:.2f}"
        test = "stratified exact test" if self.method == "exact" else "stratified mid-p test"
        return (
            f"{self.metric}d {self.successes_before}/{self.trials_before} → "
            f"{self.successes_after}/{self.trials_after} across {self.tasks} task(s) "
            f"({test}, p = {p})"
        )


def suite_test(metric: str, strata: list[Stratum], alpha: float, method: str) -> SuiteTest:
    """The suite test of `metric` from per-task (c_before, n_before, c_after, n_after)."""
    used = [s for s in strata if s[1] and s[3]]
    sb, nb = sum(s[0] for s in used), sum(s[1] for s in used)
    sa, na = sum(s[2] for s in used), sum(s[3] for s in used)
    p = stratified_p_value(used, method)
    dropped = bool(nb and na) and sa * nb < sb * na
    verdict = "no drop" if not dropped else ("regression" if p <= alpha else "within noise")
    return SuiteTest(metric, p, method, len(used), nb, na, sb, sa, verdict)
