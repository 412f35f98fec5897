"""Could the trials still to run change the suite-level test's answer?

`compare` also runs one stratified exact test over every task both sides share (and a
gate runs it over the blocking tasks of its `regression_suites`, with the gate's alpha;
the groups come from the gates in trialrun.toml): a task stopped early
brings fewer trials to it. So against a baseline a task stops only when that answer too,
regression or not, is the same whatever the run's unfinished trials do — this task's and
every other task's.

The answer is monotone in each trial's outcome: one more solved (passed) trial in a task
can only move the test away from "regression", one more unsolved (failed) one towards it,
and a trial not counted (an infra error or undetermined for solve; not run) lies between.
Every finished trial counts for pass (an infra error is a failed pass).
So it is fixed when the two extremes agree: every unfinished trial succeeds, every one
fails. That holds while every task with baseline trials has an after side already (a
task's first counted trial can pull the pooled rates either way); until then nothing is
fixed. `tests/runner/test_runner_suite_guard.py` checks the monotonicity against the test
itself, by brute force over every completion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from trialrun.tracking._gate_config import GateConfig
from trialrun.tracking._open_answer import Counts
from trialrun.tracking._suite_significance import suite_test

METRICS = ("solve", "pass")


class Side(NamedTuple):
    """One task in the suite test: its baseline counts, the run's so far, trials left."""

    before: Counts
    after: Counts
    left: int


def _strata(sides: Sequence[Side], metric: str, succeed: bool) -> list[tuple[int, int, int, int]]:
    out = []
    for before, after, left in sides:
        if metric == "solve":
            b, c, n = (before.solved, before.solve_n), after.solved, after.solve_n
        else:
            b, c, n = (before.passed, before.n), after.passed, after.n
        out.append((*b, c + (left if succeed else 0), n + left))
    return out


def suite_answer_fixed(sides: Sequence[Side], alpha: float, method: str) -> bool:
    """Whether the suite test over `sides` gives the same answer, regression or not, for
    every outcome of their trials left (solve and pass)."""
    if not any(side.left for side in sides):
        return True
    for before, after, left in sides:
        if left and ((before.n and not after.n) or (before.solve_n and not after.solve_n)):
            return False  # its first counted trial is still to come
    for metric in METRICS:
        answers = {
            suite_test(metric, _strata(sides, metric, succeed), alpha, method).verdict
            == "regression"
            for succeed in (True, False)
        }
        if len(answers) > 1:
            return False
    return True


def _blocks(gate: GateConfig, policy: str, suite: str) -> bool:
    """Whether a gate's regression rules judge a task of this policy and suite (as
    `trialrun gate`: a golden task blocks merge whatever its policy)."""
    return gate.regression_blocks(policy, suite)


def gate_alphas(
    tasks: Iterable[tuple[str, str, str]], alpha: float, gates: Sequence[GateConfig]
) -> dict[str, tuple[float, ...]]:
    """Per task id, the alphas other than `alpha` at which a gate's per-task regression
    rule judges it (a gate with an `alpha` of its own, over the task's suite)."""
    out: dict[str, tuple[float, ...]] = {}
    for task_id, suite, policy in tasks:
        alphas = {
            gate.alpha
            for gate in gates
            if gate.alpha is not None
            and gate.alpha != alpha
            and suite in gate.regression_suites
            and _blocks(gate, policy, suite)
        }
        if alphas:
            out[task_id] = tuple(sorted(alphas))
    return out


def guarded_groups(
    tasks: Iterable[tuple[str, str, str]], alpha: float, gates: Sequence[GateConfig]
) -> list[tuple[frozenset[str], float]]:
    """The task sets (and alphas) a suite test is run over, from the run's (task id, suite,
    policy): every task, at `alpha` (`compare`), and for each gate that blocks on a suite
    regression, the blocking tasks of its `regression_suites`, at the gate's alpha."""
    rows = list(tasks)
    groups = {(frozenset(t for t, _s, _p in rows), alpha)}
    for gate in gates:
        if not (gate.fail_on_suite_regression and gate.regression_suites):
            continue
        chosen = frozenset(
            t for t, s, p in rows if s in gate.regression_suites and _blocks(gate, p, s)
        )
        groups.add((chosen, gate.alpha if gate.alpha is not None else alpha))
    return [(g, a) for g, a in groups if g]
