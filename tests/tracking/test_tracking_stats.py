from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.tracking import fisher_one_sided, fisher_power, trials_for_drop
from trialrun.tracking._stats import normal_trials_for_drop


def test_fisher_three_of_three_to_two_of_three_is_half() -> None:
    # Table [[3,0],[2,1]]: P(X<=2) with N=6, K=5, n=3: C(5,2)C(1,1)/C(6,3) = 10/20.
    assert fisher_one_sided(3, 3, 2, 3) == 0.5


def test_fisher_ten_of_ten_to_two_of_ten() -> None:
    # Only x=2 is possible at or below 2: C(12,2)*C(8,8)/C(20,10) = 66/184756.
    assert fisher_one_sided(10, 10, 2, 10) == pytest.approx(66 / 184756, rel=1e-12)


def test_fisher_hand_computed_mixed_table() -> None:
    # before 8/10, after 4/10: N=20, K=12, n=10; P(X<=4) summed by hand with math.comb.
    expected = Fraction(
        sum(math.comb(12, x) * math.comb(8, 10 - x) for x in range(2, 5)), math.comb(20, 10)
    )
    assert fisher_one_sided(8, 10, 4, 10) == pytest.approx(float(expected), rel=1e-12)
    assert float(expected) == pytest.approx(0.08490, abs=1e-4)


def test_fisher_no_drop_is_not_significant() -> None:
    assert fisher_one_sided(3, 3, 3, 3) == 1.0
    assert fisher_one_sided(0, 0, 0, 3) == 1.0


def test_fisher_rejects_bad_counts() -> None:
    with pytest.raises(ValueError):
        fisher_one_sided(4, 3, 1, 3)
    with pytest.raises(ValueError):
        fisher_one_sided(-1, 3, 1, 3)


counts = st.integers(min_value=0, max_value=30)


@settings(max_examples=200, deadline=None)
@given(n1=counts, n2=counts, data=st.data())
def test_fisher_is_a_probability_and_monotonic(n1: int, n2: int, data: st.DataObject) -> None:
    c1 = data.draw(st.integers(0, n1))
    c2 = data.draw(st.integers(0, n2))
    p = fisher_one_sided(c1, n1, c2, n2)
    assert 0.0 <= p <= 1.0
    if c2 < n2:  # more successes after: weaker evidence of a drop
        assert fisher_one_sided(c1, n1, c2 + 1, n2) >= p
    if c1 < n1:  # more successes before: stronger evidence of a drop
        assert fisher_one_sided(c1 + 1, n1, c2, n2) <= p


def test_power_grows_with_trials_and_trials_for_drop_reaches_it() -> None:
    assert fisher_power(1.0, 0.8, 3) < 0.05
    n = trials_for_drop(1.0)
    assert n is not None
    assert fisher_power(1.0, 0.8, n) >= 0.8
    assert fisher_power(1.0, 0.8, n - 1) < 0.8
    # The exact test needs at least as many trials as the normal approximation suggests.
    assert n >= normal_trials_for_drop(1.0) - 2


def test_trials_for_drop_impossible_below_the_drop() -> None:
    assert trials_for_drop(0.1) is None
