"""k curves: the exact estimators at every k, an exact (Clopper–Pearson) band."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import clopper_pearson, k_curve, mean_curve, pass_at_k, pass_hat_k


def test_curve_points_are_the_exact_estimators() -> None:
    points = k_curve(5, 3)
    assert [p.k for p in points] == [1, 2, 3, 4, 5]
    for p in points:
        assert p.pass_hat == pass_hat_k(5, 3, p.k)
        assert p.pass_at == pass_at_k(5, 3, p.k)
    assert points[1].pass_hat == pytest.approx(0.3)  # C(3,2)/C(5,2)
    assert points[1].pass_at == pytest.approx(0.9)  # 1 - C(2,2)/C(5,2)


def test_clopper_pearson_known_values() -> None:
    lo, hi = clopper_pearson(10, 5)  # R: binom.test(5, 10)$conf.int
    assert lo == pytest.approx(0.1870860, abs=1e-6)
    assert hi == pytest.approx(0.8129140, abs=1e-6)
    lo, hi = clopper_pearson(3, 3)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 3), abs=1e-9)
    lo, hi = clopper_pearson(3, 0)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 3), abs=1e-9)


def test_all_solved_still_has_a_band_beyond_k1() -> None:
    # 3/3: pass^3 estimates 1.0 but p^3 is far from certain; the band says so
    last = k_curve(3, 3)[-1]
    assert last.pass_hat == 1.0
    assert last.pass_hat_lo == pytest.approx(0.025)
    assert last.pass_hat_hi == 1.0


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        k_curve(3, 4)
    with pytest.raises(ValueError):
        k_curve(True, 0)  # type: ignore[arg-type]
    assert k_curve(0, 0) == []


def test_mean_curve_runs_to_the_smallest_n_and_averages() -> None:
    curve = mean_curve([(3, 3), (5, 0), (4, 2)])
    assert [p.k for p in curve] == [1, 2, 3]
    want = (pass_hat_k(3, 3, 2) + pass_hat_k(5, 0, 2) + pass_hat_k(4, 2, 2)) / 3
    assert curve[1].pass_hat == pytest.approx(want)
    assert all(p.tasks == 3 for p in curve)
    # the band is the mean of the tasks' exact bands: it does not collapse when all fail
    bands = [k_curve(3, 3)[1], k_curve(5, 0)[1], k_curve(4, 2)[1]]
    assert curve[1].pass_hat_lo == pytest.approx(sum(b.pass_hat_lo for b in bands) / 3)
    assert curve[1].pass_at_hi == pytest.approx(sum(b.pass_at_hi for b in bands) / 3)
    failed = mean_curve([(3, 0), (3, 0)])
    assert failed[2].pass_at == 0.0 and failed[2].pass_at_hi > 0.5


def test_mean_curve_of_one_task_is_its_own_curve() -> None:
    assert mean_curve([(4, 1)]) == k_curve(4, 1)
    assert mean_curve([]) == []
    assert mean_curve([(0, 0), (2, 1)]) == k_curve(2, 1)  # no counted trial: left out


@settings(deadline=None)  # no wall-clock limit: the machine may be busy
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_band_properties(nc: tuple[int, int]) -> None:
    n, c = nc
    lo, hi = clopper_pearson(n, c)
    assert 0.0 <= lo <= c / n <= hi <= 1.0
    previous = None
    for p in k_curve(n, c):
        for low, high in ((p.pass_hat_lo, p.pass_hat_hi), (p.pass_at_lo, p.pass_at_hi)):
            assert 0.0 <= low <= high <= 1.0
            assert not math.isnan(low)
        assert p.pass_hat_lo == pytest.approx(lo ** p.k)
        if previous is not None:  # pass^k falls and pass@k rises with k
            assert p.pass_hat <= previous.pass_hat + 1e-12
            assert p.pass_at >= previous.pass_at - 1e-12
        previous = p
