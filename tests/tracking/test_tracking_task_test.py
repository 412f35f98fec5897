"""compare's per-task test on plain counts: `dropped_p_value` and `regressed`."""

from __future__ import annotations

import pytest

from trialrun.tracking import dropped_p_value, fisher_one_sided, regressed


def test_a_drop_gets_the_one_sided_fisher_p_value():
    # 5/5 → 0/4: P(X ≤ 0) = C(5,0)·C(4,4)/C(9,4) = 1/126
    assert dropped_p_value(5, 5, 0, 4) == pytest.approx(1 / 126, rel=1e-12)
    assert dropped_p_value(8, 10, 4, 10) == fisher_one_sided(8, 10, 4, 10)


@pytest.mark.parametrize("counts", [(3, 5, 3, 5), (3, 5, 4, 5), (0, 0, 0, 3), (3, 3, 0, 0)])
def test_no_drop_or_an_empty_side_has_no_p_value(counts):
    assert dropped_p_value(*counts) is None


def test_a_regression_is_some_p_value_at_most_alpha():
    assert regressed((None, 0.05), 0.05)
    assert regressed((0.3, 0.01), 0.05)
    assert not regressed((0.0501, None), 0.05)
    assert not regressed((None, None), 0.05)
