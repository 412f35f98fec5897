"""`answer_fixed`: whether any outcome of the trials left could change compare's answer.

Checked by brute force against the comparison's own test (`trialrun.tracking.dropped_p_value`
and `regressed`): every sequence of outcomes of the remaining trials is played out.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.tracking import dropped_p_value, regressed
from trialrun.tracking._open_answer import MAX_OPEN, Counts, answer_fixed

# a trial's (passed, solve), as the grader writes them; None: an infra error (a failed
# pass, left out of solve)
OUTCOMES = [None, (True, None), (True, False), (False, False), (True, True)]


def add(counts: Counts, outcome) -> Counts:
    if outcome is None:
        return Counts(counts.passed, counts.n + 1, counts.solved, counts.solve_n)
    passed, solve = outcome
    return Counts(
        counts.passed + passed,
        counts.n + 1,
        counts.solved + (solve is True),
        counts.solve_n + (solve is not None),
    )


def answer(before: Counts, after: Counts, alpha: float) -> bool:
    p_pass = dropped_p_value(before.passed, before.n, after.passed, after.n)
    p_solve = dropped_p_value(before.solved, before.solve_n, after.solved, after.solve_n)
    return regressed((p_pass, p_solve), alpha)


def every_answer(before: Counts, after: Counts, remaining: int, alpha: float) -> set[bool]:
    out = set()
    for rest in itertools.product(OUTCOMES, repeat=remaining):
        counts = after
        for outcome in rest:
            counts = add(counts, outcome)
        out.add(answer(before, counts, alpha))
    return out


@st.composite
def baselines(draw) -> Counts:
    n = draw(st.integers(0, 10))
    solve_n = draw(st.integers(0, n))
    return Counts(draw(st.integers(0, n)), n, draw(st.integers(0, solve_n)), solve_n)


@settings(max_examples=300, deadline=None)
@given(
    before=baselines(),
    observed=st.lists(st.sampled_from(OUTCOMES), max_size=6),
    remaining=st.integers(0, 4),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.25]),
)
def test_fixed_exactly_when_every_completion_gives_one_answer(before, observed, remaining, alpha):
    after = Counts(0, 0, 0, 0)
    for outcome in observed:
        after = add(after, outcome)
    answers = every_answer(before, after, remaining, alpha)
    # settled: every completion agrees; not settled: two completions disagree
    assert answer_fixed(before, after, remaining, alpha) == (len(answers) == 1)


def test_five_of_five_then_failures_is_fixed_after_four():
    # baseline solved 5/5; k = 5, every trial unsolved (but passed: no pass drop)
    before = Counts(5, 5, 5, 5)
    # 0/3 with 2 left: both solved gives 2/5, p = C(7,2)·C(3,3)/C(10,5) = 21/252 > 0.05
    assert not answer_fixed(before, Counts(3, 3, 0, 3), 2, 0.05)
    # 0/4 with 1 left: solved gives 1/5, p = 6/252; else 0/5 or 0/4: p ≤ 1/126
    assert answer_fixed(before, Counts(4, 4, 0, 4), 1, 0.05)


def test_a_baseline_that_cannot_drop_is_fixed_at_once_and_nothing_left_is_fixed():
    assert answer_fixed(Counts(0, 5, 0, 5), Counts(0, 1, 0, 1), 4, 0.05)
    # solved 0/5 but passed 5/5: four failed trials could still drop passed to 1/5 (p = 6/252)
    assert not answer_fixed(Counts(5, 5, 0, 5), Counts(1, 1, 0, 1), 4, 0.05)
    assert answer_fixed(Counts(5, 5, 0, 5), Counts(2, 2, 0, 2), 3, 0.05)  # 2/5: p = 21/252
    assert answer_fixed(Counts(5, 5, 5, 5), Counts(1, 1, 0, 1), 0, 0.05)


def test_too_many_trials_left_are_not_checked():
    never = Counts(0, 0, 0, 0)  # no baseline trials: never a regression, yet not checked
    assert answer_fixed(never, never, MAX_OPEN, 0.05)
    assert not answer_fixed(never, never, MAX_OPEN + 1, 0.05)
