"""pass and solve count infra errors as the seeds say, for any mix of trial outcomes.

pass^k = C(passed, k) / C(every finished trial, k): an infra error is a failed pass
(Scribe: pass = "the run completed without harness errors"). solve^k and pass@k are
over the trials with a verdict: infra errors and undetermined ones left out.
"""

from __future__ import annotations

from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import summarize
from trialrun.rundir import ResultLine

M = "scripted:x.yaml"
# a trial's (pass, solve, error kind) as the runner writes them
OUTCOMES = {
    "solved": (True, True, None),
    "wrong": (True, False, None),
    "timeout": (False, False, "timeout"),
    "undetermined": (True, None, None),
    "infra": (None, None, "infra"),
}


def _line(trial: int, outcome: str) -> ResultLine:
    passed, solve, kind = OUTCOMES[outcome]
    return ResultLine.from_json({
        "task_id": "a", "model": M, "provider": "scripted", "trial": trial, "pass": passed,
        "solve": solve, "error": {"kind": kind, "message": "x"} if kind else None,
        "verdicts": [], "tool_calls": [], "turns": 1, "tokens": None, "cost_usd": None,
        "latency_s": 1.0, "safety_violation": False,
    })  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    outcomes=st.lists(st.sampled_from(sorted(OUTCOMES)), min_size=1, max_size=12),
    k=st.integers(1, 12),
)
def test_pass_counts_every_finished_trial_and_solve_only_those_with_a_verdict(outcomes, k):
    lines = [_line(i, o) for i, o in enumerate(outcomes)]
    meta = {"task_id": "a", "k": k, "tracked_metrics": ["pass_rate", "solve_rate"]}
    summary = summarize(lines, [meta], models=[M])
    [row] = summary.tasks
    n = len(outcomes)
    passed = sum(OUTCOMES[o][0] is True for o in outcomes)
    solved = outcomes.count("solved")
    solve_n = n - outcomes.count("infra") - outcomes.count("undetermined")
    infra = outcomes.count("infra")
    assert (row.pass_n, row.passed, row.infra_errors) == (n, passed, infra)
    assert row.n == n - infra
    expected_pass = comb(passed, k) / comb(n, k) if n >= k else None
    expected_solve = comb(solved, k) / comb(solve_n, k) if solve_n >= k else None
    expected_at = 1 - comb(solve_n - solved, k) / comb(solve_n, k) if solve_n >= k else None
    assert row.pass_k == pytest.approx(expected_pass)
    assert row.solve_k == pytest.approx(expected_solve)
    assert row.pass_at_k == pytest.approx(expected_at)
    assert row.tracked["pass_rate"] == pytest.approx(passed / n)
    assert row.tracked["solve_rate"] == pytest.approx(solved / solve_n if solve_n else None)
    assert summary.aggregate[M]["mean_pass_rate"] == pytest.approx(passed / n)


def test_an_infra_error_lowers_pass_k_and_leaves_solve_k() -> None:
    clean = summarize([_line(i, "solved") for i in range(3)], [{"task_id": "a", "k": 3}],
                      models=[M]).tasks[0]  # fmt: skip
    lines = [_line(0, "solved"), _line(1, "solved"), _line(2, "infra")]
    [row] = summarize(lines, [{"task_id": "a", "k": 2}], models=[M]).tasks
    assert clean.pass_k == 1.0
    assert row.pass_k == pytest.approx(1 / 3)  # C(2,2)/C(3,2): the infra trial failed
    assert row.solve_k == 1.0  # C(2,2)/C(2,2): it is not counted for solve
