"""Power before the run: exact per-task figures, seeded suite figures."""

from __future__ import annotations

from trialrun.tracking import fisher_power, plan
from trialrun.tracking._power import suite_power, task_min_drop


def test_task_min_drop_is_the_first_drop_with_80_percent_power() -> None:
    drop = task_min_drop(1.0, 10, 0.05)
    assert drop is not None
    assert fisher_power(1.0, 1.0 - drop, 10, 0.05) >= 0.8
    assert fisher_power(1.0, 1.0 - drop + 0.01, 10, 0.05) < 0.8
    assert task_min_drop(0.5, 2, 0.05) is None


def test_suite_power_is_seeded_and_sees_the_issue_case() -> None:
    rates, ks = [0.95] * 20, [5] * 20
    first = suite_power(rates, ks, 0.15, 0.05)
    assert first == suite_power(rates, ks, 0.15, 0.05)
    assert first >= 0.8
    assert suite_power(rates, ks, 0.0, 0.05) <= 0.05


def test_plan_suite_line_and_k_needed() -> None:
    result = plan([(f"t{i}", 5, 0.95, "assumed") for i in range(20)], 0.05)
    assert result.suite_min_drop is not None and result.suite_min_drop <= 0.15
    assert result.suite_k_for_20 is not None and result.suite_k_for_10 is not None
    assert result.suite_k_for_20 <= result.suite_k_for_10 <= 64
    assert "20 task(s) at k = 5 can detect a uniform drop of" in result.suite_line()
    assert result.tasks[0].k_for_20 is not None and result.tasks[0].k_for_20 > 5
