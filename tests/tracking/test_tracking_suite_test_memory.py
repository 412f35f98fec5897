"""The stratified suite test over 10,000 tasks holds one law (and one leaf, one product a
level) for every distinct margin, not one a task: a comparison of two 100k-trial runs
does not hold a vector of big integers for every task while it tests the suite."""

from __future__ import annotations

import tracemalloc
from math import comb

from trialrun.tracking._lower_tail import exact_tail, lower_tail
from trialrun.tracking._suite_significance import stratified_p_value

TASKS, K = 10_000, 10
# today ~55 (the laws' list, a law and leaf a margin, a product a level); a law, a
# leaf and a product for every task: ~480
BYTES_PER_TASK = 120


def _strata() -> list[tuple[int, int, int, int]]:
    """Two runs alike (the same run compared with itself, say): a task solved every
    time, or all but once, on both sides."""
    return [(K - i % 2, K, K - i % 2, K) for i in range(TASKS)]


def test_the_suite_test_holds_a_vector_a_margin_not_a_task() -> None:
    strata = _strata()
    tracemalloc.start()
    try:
        p = stratified_p_value(strata)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.0 <= p <= 1.0
    assert peak / TASKS < BYTES_PER_TASK, peak / TASKS


def test_shared_laws_give_the_same_p_value_as_a_law_each() -> None:
    """The tail over the laws as one object per margin equals the tail over a fresh copy
    of each (the float `lower_tail` gives, and the exact integers on a small suite)."""
    strata = [(K - (i * 7) % 3, K, K - (i * 11) % 4, K) for i in range(400)]
    p = stratified_p_value(strata)
    laws, offset, observed = [], 0, 0
    for c_b, n_b, c_a, n_a in strata:
        total, succ = n_b + n_a, c_b + c_a
        low, high = max(0, n_a - (total - succ)), min(succ, n_a)
        laws.append(([comb(succ, x) * comb(total - succ, n_a - x)
                      for x in range(low, high + 1)], comb(total, n_a)))
        offset += low
        observed += c_a
    assert p == lower_tail(laws, observed - offset)
    small = strata[:40]
    assert stratified_p_value(small) == exact_tail(
        [laws[i] for i in range(40)], sum(s[2] for s in small)
        - sum(max(0, s[3] - (s[1] + s[3] - s[0] - s[2])) for s in small), False)
