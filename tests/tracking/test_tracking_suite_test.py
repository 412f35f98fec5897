"""The suite-level stratified exact test: hand-checked cases, brute force, compare, gates."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_support import cli_process
from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.reports import comparisons_markdown
from trialrun.tracking import (
    bless,
    compare_runs,
    configured_method,
    fisher_one_sided,
    run_gate,
    stratified_p_value,
    suite_test,
)


def _brute(strata: list[tuple[int, int, int, int]], method: str) -> float:
    """Enumerate every joint outcome of the per-task hypergeometric laws."""
    laws = []
    observed = 0
    for c_b, n_b, c_a, n_a in strata:
        if not n_b or not n_a:
            continue
        m, total = c_b + c_a, n_b + n_a
        law = {
            x: Fraction(math.comb(m, x) * math.comb(total - m, n_a - x), math.comb(total, n_a))
            for x in range(0, n_a + 1)
            if 0 <= m - x <= n_b
        }
        laws.append(law)
        observed += c_a
    below = at = Fraction(0)
    for combo in itertools.product(*(law.items() for law in laws)):
        t = sum(x for x, _ in combo)
        w = math.prod((p for _, p in combo), start=Fraction(1))
        if t < observed:
            below += w
        elif t == observed:
            at += w
    return float(below + at if method == "exact" else below + at / 2)


def test_one_task_is_fisher() -> None:
    assert stratified_p_value([(3, 3, 2, 3)]) == 0.5 == fisher_one_sided(3, 3, 2, 3)
    assert stratified_p_value([(10, 10, 2, 10)]) == pytest.approx(fisher_one_sided(10, 10, 2, 10))


def test_hand_checked_two_tasks() -> None:
    # Each of 2/2 → 1/2: X_i ∈ {1, 2} with P = 1/2 each (hypergeometric 3 successes of 4).
    # T_obs = 2: P(T ≤ 2) = 1/4; mid-p = 1/4 - 1/8 = 1/8.
    assert stratified_p_value([(2, 2, 1, 2)] * 2) == 0.25
    assert stratified_p_value([(2, 2, 1, 2)] * 2, "mid-p") == 0.125


def test_empty_side_and_no_strata_are_uninformative() -> None:
    assert stratified_p_value([]) == 1.0
    assert stratified_p_value([(0, 0, 1, 3)]) == 1.0
    with pytest.raises(ValueError):
        stratified_p_value([(4, 3, 1, 3)])
    with pytest.raises(ValueError):
        stratified_p_value([(1, 3, 1, 3)], "bayes")


_stratum = st.integers(0, 4).flatmap(
    lambda n_b: st.integers(0, 4).flatmap(
        lambda n_a: st.tuples(
            st.integers(0, n_b), st.just(n_b), st.integers(0, n_a), st.just(n_a)
        )
    )
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_stratum, max_size=4), st.sampled_from(["exact", "mid-p"]))
def test_matches_brute_force_enumeration(strata, method) -> None:
    assert stratified_p_value(strata, method) == pytest.approx(_brute(strata, method), abs=1e-12)


def test_verdicts() -> None:
    assert suite_test("solve", [(5, 5, 4, 5)] * 20, 0.05, "exact").verdict == "regression"
    assert suite_test("solve", [(5, 5, 5, 5)] * 20, 0.05, "exact").verdict == "no drop"
    assert suite_test("solve", [(5, 5, 4, 5)], 0.05, "exact").verdict == "within noise"


def _uniform_drop(make_run, T) -> tuple[Path, Path]:
    before = make_run([T(f"t{i:02d}", n=5, k=5) for i in range(20)], name="BEFORE")
    after = make_run(
        [T(f"t{i:02d}", n=5, k=5, solved=4 if i < 12 else 5) for i in range(20)], name="AFTER"
    )
    return before, after


def test_uniform_drop_no_task_flags_the_suite_test_does(make_run, T) -> None:
    before, after = _uniform_drop(make_run, T)
    [c] = compare_runs(after, before, alpha=0.05, method="exact")
    assert c.regressions == []
    assert len(c.within_noise) == 12
    solve = c.suite_tests[0]
    assert (solve.metric, solve.tasks, solve.trials_before, solve.trials_after) == (
        "solve",
        20,
        100,
        100,
    )
    assert (solve.successes_before, solve.successes_after) == (100, 88)
    assert solve.verdict == "regression" and solve.p_value < 0.001
    assert c.suite_tests[1].metric == "pass" and c.suite_tests[1].verdict == "no drop"
    markdown = comparisons_markdown([c])
    assert "**SUITE REGRESSION**: solved 100/100 → 88/100 across 20 task(s)" in markdown


def test_compare_json_and_text_carry_the_suite_test(make_run, T, tmp_path) -> None:
    before, after = _uniform_drop(make_run, T)
    proc = cli_process("compare", str(after), "--against", str(before), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [comparison] = json.loads(proc.stdout)["comparisons"]
    solve = comparison["comparison"]["suite_test"][0]
    assert solve["metric"] == "solve" and solve["method"] == "exact"
    assert solve["verdict"] == "regression"
    assert (solve["tasks"], solve["trials_before"], solve["trials_after"]) == (20, 100, 100)
    assert comparison["comparison"]["regressions"] == []
    text = cli_process("compare", str(after), "--against", str(before), cwd=tmp_path).stdout
    [line] = [x for x in text.splitlines() if "SUITE" in x]
    assert "solved 100/100 → 88/100 across 20 task(s) (stratified exact test" in line


def test_mid_p_from_config_is_smaller(make_run, T, tmp_path) -> None:
    before = make_run([T("a", n=5, k=5), T("b", n=5, k=5)], name="B")
    after = make_run([T("a", n=5, k=5, solved=4), T("b", n=5, k=5, solved=4)], name="A")
    exact = compare_runs(after, before, alpha=0.05, method="exact")[0].suite_tests[0]
    mid = compare_runs(after, before, alpha=0.05, method="mid-p")[0].suite_tests[0]
    assert mid.method == "mid-p" and mid.p_value < exact.p_value
    (tmp_path / "trialrun.toml").write_text('[compare]\nmethod = "mid-p"\n', encoding="utf-8")
    proc = cli_process("compare", str(after), "--against", str(before), "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["comparisons"][0]["comparison"]["suite_test"][0][
        "method"
    ] == "mid-p"


def test_bad_method_is_a_user_error(tmp_path) -> None:
    (tmp_path / "trialrun.toml").write_text('[compare]\nmethod = "bayes"\n', encoding="utf-8")
    from trialrun.config import load_config

    with pytest.raises(UserError, match=r"\[compare\] method must be"):
        configured_method(load_config(tmp_path / "trialrun.toml"))


def test_merge_gate_fails_on_a_suite_regression_only(make_run, T, tmp_path) -> None:
    before, after = _uniform_drop(make_run, T)
    out = tmp_path / "bl"
    bless(before, out)
    # ALWAYS_PASSES every-trial rule off and a golden-only run allowed, to see the
    # regression rules alone
    alone = {"always_passes_every_trial": False, "allow_missing": True}
    cfg = ProjectConfig(data={"gates": {"merge": alone}})
    result = run_gate("merge", after, baselines_dir=out, config=cfg)
    failed = {r.rule for m in result.models for r in m.rules if r.status == "failed"}
    assert failed == {"golden suite-level regression"}
    cfg = ProjectConfig(
        data={
            "gates": {
                "merge": {**alone, "fail_on_suite_regression": False}
            }
        }
    )
    assert run_gate("merge", after, baselines_dir=out, config=cfg).passed


def test_plan_reads_rates_from_a_baseline(make_run, T, tmp_path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "golden"
    out = tmp_path / "bl"
    [item] = bless(make_run([T("create-todo", n=5, k=5, solved=4)]), out)
    proc = cli_process("plan", str(examples), "--baseline", str(item.path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert any("create-todo" in x and "rate 80% (baseline)" in x for x in proc.stdout.splitlines())
