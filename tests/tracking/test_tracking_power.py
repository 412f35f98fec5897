"""Power before the run: exact per-task figures, the suite's approximation checked against
the exact stratified test (exact itself in small suites), tasks at a 0 % baseline set
aside."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.tracking import SetAside, fisher_one_sided, fisher_power, plan, stratified_p_value
from trialrun.tracking._power import (
    NO_DROP,
    STEP,
    suite_k_for_drop,
    suite_min_drop,
    suite_power,
    suite_power_line,
    task_min_drop,
)
from trialrun.tracking._stats import rejection_bounds
from trialrun.tracking._suite_power import suite_power_is_exact

ALPHAS = (0.05, 0.01, 0.1, 0.2)


def _pmf(n: int, p: float) -> list[float]:
    return [math.comb(n, x) * p**x * (1 - p) ** (n - x) for x in range(n + 1)]


def _power_by_enumeration(p_before: float, p_after: float, n: int, alpha: float) -> float:
    """The slow exact power: every (before, after) table, tested by `fisher_one_sided`."""
    before, after = _pmf(n, p_before), _pmf(n, p_after)
    return sum(
        before[c0] * after[c1]
        for c0 in range(n + 1)
        for c1 in range(n + 1)
        if fisher_one_sided(c0, n, c1, n) <= alpha
    )


def _suite_power_by_enumeration(
    rates: list[float], k: int, drop: float, alpha: float, method: str = "exact"
) -> float:
    """The exact power of the stratified exact test: every combination of tables."""
    per_task = []
    for rate in rates:
        before, after = _pmf(k, rate), _pmf(k, max(rate - drop, 0.0))
        per_task.append(
            [((c0, k, c1, k), before[c0] * after[c1]) for c0 in range(k + 1) for c1 in range(k + 1)]
        )
    power = 0.0
    for tables in itertools.product(*per_task):
        strata = [t for t, _ in tables]
        dropped = sum(s[2] for s in strata) < sum(s[0] for s in strata)
        if dropped and stratified_p_value(strata, method) <= alpha:
            power += math.prod(w for _, w in tables)
    return power


def _suite_power_by_simulation(
    rates: list[float], k: int, drop: float, alpha: float, draws: int
) -> float:
    rng = random.Random(25)
    hits = 0
    for _ in range(draws):
        strata = []
        for rate in rates:
            after = max(rate - drop, 0.0)
            c0 = sum(rng.random() < rate for _ in range(k))
            c1 = sum(rng.random() < after for _ in range(k))
            strata.append((c0, k, c1, k))
        dropped = sum(s[2] for s in strata) < sum(s[0] for s in strata)
        hits += dropped and stratified_p_value(strata) <= alpha
    return hits / draws


@pytest.mark.parametrize("alpha", ALPHAS)
def test_rejection_bounds_are_the_fisher_tests_region_and_a_prefix(alpha: float) -> None:
    for n in range(1, 41):
        bounds = rejection_bounds(n, alpha)
        for c0 in range(n + 1):
            rejected = [fisher_one_sided(c0, n, c1, n) <= alpha for c1 in range(n + 1)]
            assert rejected == [c1 <= bounds[c0] for c1 in range(n + 1)], (n, c0)


@settings(max_examples=60, deadline=None)
@given(
    p_before=st.floats(0.0, 1.0),
    p_after=st.floats(0.0, 1.0),
    n=st.integers(1, 30),
    alpha=st.sampled_from(ALPHAS),
)
def test_fisher_power_equals_the_enumeration(
    p_before: float, p_after: float, n: int, alpha: float
) -> None:
    expected = _power_by_enumeration(p_before, p_after, n, alpha)
    assert fisher_power(p_before, p_after, n, alpha) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(rate=st.integers(0, 100).map(lambda r: r / 100), k=st.integers(1, 40))
def test_task_min_drop_is_the_first_whole_point_with_80_percent_power(rate: float, k: int) -> None:
    first = next(
        (
            points * STEP
            for points in range(1, int(round(rate * 100)) + 1)
            if fisher_power(rate, max(rate - points * STEP, 0.0), k, 0.05) >= 0.8
        ),
        None,
    )
    assert task_min_drop(rate, k, 0.05) == first


def test_task_min_drop_examples() -> None:
    drop = task_min_drop(1.0, 10, 0.05)
    assert drop is not None
    assert fisher_power(1.0, 1.0 - drop, 10, 0.05) >= 0.8
    assert fisher_power(1.0, 1.0 - drop + 0.01, 10, 0.05) < 0.8
    assert task_min_drop(0.5, 2, 0.05) is None


@settings(max_examples=25, deadline=None)
@given(
    rates=st.lists(st.sampled_from([0.5, 0.7, 0.8, 0.9, 0.95, 1.0]), min_size=1, max_size=3),
    k=st.integers(1, 3),
    drop=st.sampled_from([0.1, 0.2, 0.3, 0.5]),
    method=st.sampled_from(["exact", "mid-p"]),
)
def test_suite_power_is_the_exact_tests_in_small_suites(
    rates: list[float], k: int, drop: float, method: str
) -> None:
    ks = [k] * len(rates)
    assert suite_power_is_exact(rates, ks, drop, method)
    expected = _suite_power_by_enumeration(rates, k, drop, 0.05, method)
    assert suite_power(rates, ks, drop, 0.05, method) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("rates", "k"), [([0.9, 0.9], 10), ([0.7, 0.7], 8), ([1.0] * 3, 4)])
def test_suite_power_is_exact_up_to_its_budget(rates: list[float], k: int) -> None:
    for drop in (0.1, 0.3):
        expected = _suite_power_by_enumeration(rates, k, drop, 0.05)
        assert suite_power(rates, [k] * len(rates), drop, 0.05) == pytest.approx(expected, abs=1e-9)


def test_suite_power_approximation_near_the_exact_test_at_10_tasks() -> None:
    """Against a seeded simulation of the exact test (2000 draws: ± 0.011): the module's
    0.03 plus three standard errors."""
    rates = [0.7] * 10
    assert not suite_power_is_exact(rates, [5] * 10, 0.1, "exact")
    for drop in (0.1, 0.2, 0.3):
        simulated = _suite_power_by_simulation(rates, 5, drop, 0.05, 2000)
        assert suite_power(rates, [5] * 10, drop, 0.05) == pytest.approx(simulated, abs=0.065)


def test_suite_power_grows_with_the_drop_and_holds_alpha_at_none() -> None:
    rates, ks = [0.95] * 20, [5] * 20
    powers = [suite_power(rates, ks, points / 100, 0.05) for points in range(0, 40)]
    assert powers == sorted(powers)
    assert powers[0] <= 0.05 and powers[15] >= 0.8


def test_plan_suite_line_and_k_needed() -> None:
    result = plan([(f"t{i}", 5, 0.95, "assumed") for i in range(20)], 0.05)
    assert result.suite_min_drop is not None and result.suite_min_drop <= 0.15
    assert result.suite_k_for_20 is not None and result.suite_k_for_10 is not None
    assert result.suite_k_for_20 <= result.suite_k_for_10 <= 64
    assert "20 task(s) at k = 5 can detect a uniform drop of" in result.suite_line()
    assert result.tasks[0].k_for_20 is not None and result.tasks[0].k_for_20 > 5
    assert result.set_aside == [] and result.set_aside_line() is None
    assert not result.suite_exact and result.suite_line().endswith("normal approximation)")
    one = plan([("t", 10, 1.0, "assumed")], 0.05)
    assert one.suite_exact and one.suite_line().endswith("α = 0.05, exact)")
    assert one.suite_min_drop == one.tasks[0].min_drop  # one task: the suite test is Fisher's


def test_a_task_at_0_percent_is_set_aside_and_named_not_zeroing_the_suite() -> None:
    """The issue's case: one task at a 0 % baseline made `plan` say no drop is detectable."""
    others = [(f"t{i}", 10, 0.9, "baseline") for i in range(2, 21)]
    result = plan([("t1", 10, 0.0, "baseline"), *others], 0.05)
    alone = plan(others, 0.05)
    assert result.set_aside == [SetAside("t1", 0.0, NO_DROP)]
    assert result.set_aside_line() == "set aside: t1 (0% in baseline: no drop to detect)"
    assert [t.task_id for t in result.tasks] == [t for t, *_ in others]
    assert result.suite_min_drop is not None and result.suite_min_drop == alone.suite_min_drop
    assert (result.suite_k_for_10, result.suite_k_for_20) == (
        alone.suite_k_for_10,
        alone.suite_k_for_20,
    )
    assert result.suite_line().startswith("power: 19 task(s) at k = 10 can detect a uniform")


def test_a_task_below_the_drop_falls_to_0_and_keeps_the_suite_figures() -> None:
    rates = [0.05] + [0.9] * 19
    assert suite_k_for_drop(rates, 0.10, 0.05) is not None
    assert suite_k_for_drop(rates, 0.20, 0.05) is not None
    assert suite_min_drop(rates, [10] * 20, 0.05) is not None


def test_every_task_set_aside() -> None:
    result = plan([("t1", 5, 0.0, "baseline")], 0.05)
    assert result.tasks == [] and result.suite_min_drop is None
    assert "every task is set aside" in result.suite_line()
    assert "none of 1 task(s)" in suite_power_line([(5, 0.0)], 0.05)


def test_plan_at_100_tasks_and_k_100_builds_each_region_once() -> None:
    """The size the issue timed at 62 s: the work is bounded by the distinct trial counts
    (each Fisher region built once), not by tasks × draws of a simulation."""
    rejection_bounds.cache_clear()
    rows = [(f"t{i}", 100, (i % 100 + 1) / 100, "baseline") for i in range(100)]
    result = plan(rows, 0.05)
    assert len(result.tasks) == 100 and result.set_aside == []
    assert result.suite_min_drop is not None and result.suite_min_drop <= 0.05
    assert all(t.min_drop is None or 0 < t.min_drop <= t.rate for t in result.tasks)
    assert rejection_bounds.cache_info().currsize <= 201  # n = 1…200, at most once each
    line = suite_power_line([(100, 0.9)] * 100, 0.05)
    assert line.startswith("power: 100 task(s) at k = 100 can detect a uniform drop of")
