import pytest

from trialrun.metrics import summarize
from trialrun.rundir import ResultLine

M = "scripted:x.yaml"


def line(task, trial, p, s, *, kind=None, model=M, latency=1.0, verdicts=None, tokens=None):
    return ResultLine.from_json({
        "task_id": task,
        "model": model,
        "provider": model.partition(":")[0],
        "trial": trial,
        "pass": p,
        "solve": s,
        "error": {"kind": kind, "message": "x"} if kind else None,
        "verdicts": verdicts or [],
        "tool_calls": [],
        "turns": 2,
        "tokens": tokens or {"prompt": 10, "cached": 1, "completion": 5},
        "cost_usd": 0.01,
        "latency_s": latency,
        "safety_violation": False,
    })


def meta(task, k=3, tier="T1", suite="golden", tags=()):
    return {
        "task_id": task,
        "suite": suite,
        "tier": tier,
        "k": k,
        "tags": list(tags),
        "policy": "ALWAYS_PASSES",
        "metric": "pass^k",
    }


def row(summary, task, model=M):
    return next(r for r in summary.tasks if r.task_id == task and r.model == model)


def test_keys_exactly_as_design():
    s = summarize([line("a", 0, True, True)], [meta("a", k=1)], run_id="r1", models=[M], k=None)
    for key in ("run_id", "models", "k", "tasks", "aggregate"):
        assert key in s.to_json()
    r = s.tasks[0]
    for key in (
        "task_id",
        "model",
        "provider",
        "suite",
        "tier",
        "k",
        "n",
        "passed",
        "solved",
        "undetermined",
        "infra_errors",
        "pass_k",
        "solve_k",
        "pass_at_k",
        "flaky",
    ):
        assert key in r.to_json()
    agg = s.aggregate[M]
    for key in (
        "pass_k_rate",
        "solve_k_rate",
        "mean_pass_rate",
        "mean_solve_rate",
        "flaky_task_count",
        "insufficient",
        "by_tier",
        "latency_p50_s",
        "latency_p95_s",
        "tokens",
        "cost_usd",
    ):
        assert key in agg
    assert agg["tokens"] == {"prompt": 10, "cached": 1, "completion": 5}


def test_exact_estimators_and_flaky():
    lines = [line("a", i, True, i < 3) for i in range(5)]
    s = summarize(lines, [meta("a", k=2)], models=[M])
    r = row(s, "a")
    assert (r.n, r.passed, r.solved) == (5, 5, 3)
    assert r.pass_k == 1.0
    assert r.solve_k == pytest.approx(3 / 10)
    assert r.pass_at_k == pytest.approx(9 / 10)
    assert r.flaky is True
    assert s.aggregate[M]["flaky_task_count"] == 1


def test_an_infra_error_is_a_failed_pass_and_leaves_the_solve_denominators():
    lines = [
        line("a", 0, True, True),
        line("a", 1, True, True),
        line("a", 2, None, None, kind="infra"),
        line("a", 3, True, True),
    ]
    s = summarize(lines, [meta("a", k=3)], models=[M])
    r = row(s, "a")
    assert r.n == 3 and r.infra_errors == 1 and r.pass_n == 4
    assert r.pass_k == pytest.approx(1 / 4)  # C(3,3)/C(4,3): the infra trial did not pass
    assert r.solve_k == 1.0 and r.pass_at_k == 1.0  # 3 solved of 3 counted
    assert s.aggregate[M]["mean_pass_rate"] == pytest.approx(3 / 4)
    assert s.aggregate[M]["mean_solve_rate"] == 1.0
    assert s.aggregate[M]["insufficient"] == 0


def test_undetermined_leaves_solve_denominator_only():
    lines = [line("a", i, True, True) for i in range(3)] + [line("a", 3, True, None)]
    r = row(summarize(lines, [meta("a", k=3)], models=[M]), "a")
    assert r.n == 4 and r.undetermined == 1
    assert r.pass_k == 1.0  # 4 passes of 4
    assert r.solve_k == 1.0  # 3 of 3 determined
    assert r.flaky is False


def test_insufficient_when_fewer_than_k_counted():
    lines = [
        line("a", 0, True, True),
        line("a", 1, True, None),
        line("a", 2, None, None, kind="infra"),
    ]
    lines += [line("b", i, True, True) for i in range(3)]
    s = summarize(lines, [meta("a", k=2), meta("b", k=3, tier="T2")], models=[M])
    a = row(s, "a")
    # pass counts all 3 finished trials, the infra error a failed pass: C(2,2)/C(3,2)
    assert a.n == 2 and a.pass_n == 3 and a.pass_k == pytest.approx(1 / 3)
    assert a.solve_k is None and a.pass_at_k is None  # only 1 determined
    agg = s.aggregate[M]
    assert agg["insufficient"] == 1
    # a's null solve^k is left out of the aggregate; its pass^k is kept
    assert agg["solve_k_rate"] == 1.0
    assert agg["pass_k_rate"] == pytest.approx((1 / 3 + 1) / 2)
    assert agg["by_tier"] == {
        "T1": {"tasks": 1, "passed_k": 0, "solved_k": 0},
        "T2": {"tasks": 1, "passed_k": 1, "solved_k": 1},
    }


def test_undetermined_never_counted_as_solved():
    lines = [line("a", i, True, None) for i in range(3)]
    r = row(summarize(lines, [meta("a", k=3)], models=[M]), "a")
    assert r.solved == 0 and r.solve_k is None


def test_failed_trial_counts_and_mean_rates():
    lines = [
        line("a", 0, False, False, kind="timeout"),
        line("a", 1, True, True),
        line("a", 2, True, False, verdicts=[{"grader": "contains", "passed": False}]),
    ]
    lines += [line("b", i, True, True) for i in range(3)]
    s = summarize(lines, [meta("a"), meta("b")], models=[M])
    a = row(s, "a")
    assert a.passed == 2 and a.solved == 1
    assert a.pass_k == 0.0 and a.solve_k == 0.0
    assert a.pass_at_k == 1.0
    assert a.failed_graders == {"contains": 1}
    assert a.errors == {"timeout": 1}
    agg = s.aggregate[M]
    assert agg["mean_pass_rate"] == pytest.approx(5 / 6)
    assert agg["mean_solve_rate"] == pytest.approx(4 / 6)
    assert agg["pass_k_rate"] == pytest.approx(0.5)
    assert agg["solve_k_rate"] == pytest.approx(0.5)


def test_rows_for_tasks_not_run_yet_and_duplicates_ignored():
    lines = [line("a", 0, True, True), line("a", 0, False, False)]
    s = summarize(lines, [meta("a", k=1), meta("b", k=1)], models=[M])
    assert row(s, "a").solved == 1
    b = row(s, "b")
    assert b.n == 0 and b.pass_k is None
    assert any("duplicate" in w for w in s.warnings)
    assert s.expected_trials == 2 and s.finished_trials == 1


def test_latency_percentiles_and_groups():
    lines = [line("a", i, True, True, latency=float(i + 1)) for i in range(4)]
    s = summarize(lines, [meta("a", k=2, suite="adversarial", tags=["x", "y"])], models=[M])
    agg = s.aggregate[M]
    assert agg["latency_p50_s"] == pytest.approx(2.5)
    assert agg["latency_p95_s"] == pytest.approx(3.85)
    assert agg["cost_usd"] == pytest.approx(0.04)
    assert set(s.by_suite[M]) == {"adversarial"}
    assert set(s.by_tag[M]) == {"x", "y"}
    assert s.by_tag[M]["x"]["pass_k_rate"] == 1.0


def test_unpinned_models_and_several_models():
    other = "openai:gpt-4o-latest"
    lines = [line("a", 0, True, True), line("a", 0, True, False, model=other)]
    s = summarize(lines, [meta("a", k=1)], models=[M, other])
    assert s.unpinned_models == [other]
    assert row(s, "a", other).solve_k == 0.0
    assert set(s.aggregate) == {M, other}
