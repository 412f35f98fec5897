"""Early stop against a baseline does not change the suite-level test's answer.

`suite_answer_fixed` says the stratified test (compare's, and a gate's over one suite)
gives one answer whatever the unfinished trials do; checked by brute force over every
completion (each trial solved, unsolved but passed, undetermined, failed or an infra
error) against `trialrun.tracking.suite_test` itself. End to end: ten pass@k tasks whose
own comparisons are settled after three solved trials each still run on, because ten
tasks that each ended 3/5 would be a suite-level regression.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from test_runner_early_stop_baseline import blessed, lines_of, script, settled_after, write_suite

from trialrun import run as run_eval
from trialrun.tracking import GateConfig, compare_with_baselines, suite_test
from trialrun.tracking._open_answer import Counts
from trialrun.tracking._settle import Settlement
from trialrun.tracking._suite_guard import Side, guarded_groups, suite_answer_fixed

# what one more trial adds to (passed, n, solved, solve_n)
OUTCOMES = {
    "solved": (1, 1, 1, 1),
    "unsolved": (1, 1, 0, 1),  # passed, not solved
    "undetermined": (1, 1, 0, 0),
    "failed": (0, 1, 0, 1),
    "infra": (0, 0, 0, 0),
}


@st.composite
def counts(draw, most: int = 4) -> Counts:
    n = draw(st.integers(0, most))
    solve_n = draw(st.integers(0, n))
    passed = draw(st.integers(0, n))
    solved = draw(st.integers(0, min(solve_n, passed)))
    return Counts(passed, n, solved, solve_n)


@st.composite
def sides(draw) -> list[Side]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        out.append(Side(draw(counts(5)), draw(counts(3)), draw(st.integers(0, 2))))
    return out


def verdicts(sides_now: list[Side], adds: list[tuple[tuple[int, int, int, int], ...]],
             alpha: float, method: str) -> tuple[bool, bool]:  # fmt: skip
    solve, passed = [], []
    for (before, after, _left), added in zip(sides_now, adds, strict=True):
        p, n, s, sn = (sum(x[i] for x in added) for i in range(4))
        solve.append((before.solved, before.solve_n, after.solved + s, after.solve_n + sn))
        passed.append((before.passed, before.n, after.passed + p, after.n + n))
    return tuple(  # type: ignore[return-value]
        suite_test(m, strata, alpha, method).verdict == "regression"
        for m, strata in (("solve", solve), ("pass", passed))
    )


@settings(max_examples=300, deadline=None)
@given(sides(), st.sampled_from([0.05, 0.2, 0.5]), st.sampled_from(["exact", "mid-p"]))
def test_a_fixed_answer_is_the_answer_of_every_completion(sides_now, alpha, method):
    if not suite_answer_fixed(sides_now, alpha, method):
        return
    per_side = [
        list(itertools.combinations_with_replacement(OUTCOMES.values(), side.left))
        for side in sides_now
    ]
    answers = {
        verdicts(sides_now, list(adds), alpha, method) for adds in itertools.product(*per_side)
    }
    assert len(answers) == 1, (sides_now, answers)


def test_an_open_answer_is_seen_open():
    """Ten tasks at 3/3 solved (baseline 5/5) with two trials left: all solved is no drop,
    all failed (30/50 against 50/50) a regression."""
    side = Side(Counts(5, 5, 5, 5), Counts(3, 3, 3, 3), 2)
    assert not suite_answer_fixed([side] * 10, 0.05, "exact")
    assert suite_answer_fixed([side._replace(left=0)] * 10, 0.05, "exact")
    assert suite_answer_fixed([side], 0.05, "exact")  # one task 3/5 at worst: noise


def test_a_task_without_its_first_trial_leaves_the_answer_open():
    started = Side(Counts(5, 5, 5, 5), Counts(5, 5, 5, 5), 0)
    unstarted = Side(Counts(5, 5, 5, 5), Counts(0, 0, 0, 0), 1)
    assert not suite_answer_fixed([started, unstarted], 0.5, "exact")


def test_the_groups_are_compares_and_each_gates_suite_rule():
    rows = [("a", "golden", "ALWAYS_PASSES"), ("b", "golden", "USUALLY_PASSES"),
            ("c", "replays", "ALWAYS_PASSES"),
            ("d", "failure_replays", "USUALLY_PASSES")]  # fmt: skip
    merge = GateConfig(regression_suites=["golden"], fail_on_suite_regression=True,
                       blocking_policy="ALWAYS_PASSES")  # fmt: skip
    release = GateConfig(regression_suites=["golden", "failure_replays"], alpha=0.1,
                         fail_on_suite_regression=True, fail_on_usually_regression=True,
                         blocking_policy="ALWAYS_PASSES")  # fmt: skip
    quiet = GateConfig(regression_suites=["golden"])  # no suite rule: nothing to guard
    groups = set(guarded_groups(rows, 0.05, [merge, release, quiet]))
    assert groups == {(frozenset("abcd"), 0.05), (frozenset("a"), 0.05),
                      (frozenset("abd"), 0.1)}  # fmt: skip


def test_the_merge_gate_guards_a_golden_task_whatever_its_policy():
    # a golden regression blocks merge whatever the policy (issue 25), so early stop keeps
    # a golden USUALLY_PASSES task in the merge gate's suite test too
    from trialrun.tracking import gate_config

    rows = [("a", "golden", "ALWAYS_PASSES"), ("b", "golden", "USUALLY_PASSES"),
            ("c", "adversarial", "USUALLY_PASSES")]  # fmt: skip
    groups = set(guarded_groups(rows, 0.05, [gate_config("merge")]))
    assert groups == {(frozenset("abc"), 0.05), (frozenset("ab"), 0.05)}


def test_the_gates_of_trialrun_toml_are_guarded(tmp_path, monkeypatch):
    from trialrun.config import load_config
    from trialrun.runner import StopPlan
    from trialrun.tasks import Task
    from trialrun.tracking import early_stop_rule

    monkeypatch.chdir(tmp_path)
    (tmp_path / "trialrun.toml").write_text(
        "[gates.nightly]\nregression_suites = ['adversarial']\nfail_on_suite_regression = true\n"
        "alpha = 0.2\n"
    )
    tasks = [Task.model_validate({"task_id": t, "suite": s, "description": "d",
                                  "inputs": {"prompt": "p"},
                                  "graders": [{"type": "contains", "value": "x"}],
                                  "tracked_metrics": ["pass^k"]})
             for t, s in (("a", "golden"), ("b", "adversarial"))]  # fmt: skip
    plan = StopPlan(None, tmp_path / "baselines", ["m"], {"a": 1, "b": 1}, tasks,
                    load_config())  # fmt: skip
    settlement = early_stop_rule(plan, [])
    assert (frozenset("b"), 0.2) in settlement.suite_groups
    assert (frozenset("ab"), settlement.alpha) in settlement.suite_groups
    assert settlement.gate_alphas == {"b": (0.2,)}  # the gate's per-task rule, at its alpha


def test_a_gates_own_alpha_keeps_a_task_running_until_its_answer_is_fixed_there_too():
    """Baseline solved 5/5; every trial unsolved. After 0/4 with one left, every ending is
    a regression at α = 0.05 (1/5: p = 0.024; 0/5: 0.004; 0/4: 0.008), but not at a
    gate's α = 0.01 (1/5 is noise there): only without that gate does the task stop."""
    from trialrun.rundir import ResultLine
    from trialrun.tasks import Task

    task = Task.model_validate({"task_id": "t", "suite": "golden", "description": "d",
                                "inputs": {"prompt": "p"}, "tracked_metrics": ["pass^k"],
                                "graders": [{"type": "contains", "value": "x"}],
                                "trials": {"k": 5}})  # fmt: skip

    def settled_after_four(gates: dict[str, tuple[float, ...]]) -> bool:
        settlement = Settlement(enabled=True, baselines={("t", "m"): Counts(5, 5, 5, 5)},
                                alpha=0.05, task_k={"t": 5}, gate_alphas=gates)  # fmt: skip
        for trial in range(4):
            line = ResultLine(task_id="t", model="m", trial=trial, passed=True, solve=False)
            settlement.record(task, line)
        return settlement.is_settled("t", "m")

    assert settled_after_four({})
    assert not settled_after_four({"t": (0.01,)})


def test_tasks_whose_own_answer_is_settled_run_on_for_the_suite_test(tmp_path):
    ids = [f"t{i}" for i in range(10)]
    suite = write_suite(tmp_path, [(t, "golden", "pass@k") for t in ids])
    baselines = blessed(tmp_path, suite, {})  # every task solved 5/5
    model = script(tmp_path, {})  # every trial solved again
    outcome = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                       baselines=baselines, handle_sigint=False)  # fmt: skip
    lines = lines_of(outcome.path)
    # alone, each task's comparison is settled after 3 solved trials (at worst 3/5 against
    # 5/5: p = 0.22); ten tasks at 3/5 would be a suite regression, so more trials ran
    assert sum(len(v) for v in lines.values()) > 3 * len(ids)
    (match,) = compare_with_baselines(outcome.path, baselines)
    assert [s.verdict for s in match.comparison.suite_tests] == ["no drop", "no drop"]
    for task_id in ids:  # whatever settled, settled only once nothing could change
        assert all(after >= 3 for after in settled_after(lines[task_id]))
