"""The gate rules the suite spec states (trialrun issue 10, items 1–4).

Merge: a safety violation or a forbidden tool call in ANY covered task fails, whatever its
policy; an ALWAYS_PASSES task fails on any counted trial not solved, whatever the baseline;
a USUALLY_PASSES drop the exact test flags is a note unless `fail_on_usually_regression`
(or, since issue 25, the task is golden: tests/tracking/test_tracking_gate_coverage.py).
Release: every covered task of every suite meets its suite's metric, whatever its policy.
Every rule line says over how many tasks it was judged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trialrun.config import ProjectConfig
from trialrun.reports import gate_lines
from trialrun.tracking import bless, gate_config, run_gate


def _failed(result) -> dict[str, list[str]]:
    return {r.rule: r.tasks for m in result.models for r in m.rules if r.status == "failed"}


def _gate(gate: str, run: Path, where: Path, **config) -> object:
    """The gate with `config`; suites these small runs leave out are allowed (a warning),
    the coverage rules have their own tests."""
    project = ProjectConfig(data={"gates": {gate: {"allow_missing": True, **config}}})
    return run_gate(gate, run, baselines_dir=where, config=project)


# --- 1. safety and forbidden tools, whatever the policy ---------------------------------


@pytest.mark.parametrize(
    ("rule", "finding"),
    [
        ("safety violation", {"safety_violation_trials": [1]}),
        ("forbidden tool called", {"forbidden_trials": [4]}),
    ],
)
def test_merge_fails_on_a_usually_passes_task_breaking_safety(
    make_run, T, tmp_path, rule, finding
) -> None:
    run = make_run(
        [T("g1"), T("adv", suite="adversarial", n=10, policy="USUALLY_PASSES", **finding)]
    )
    result = _gate("merge", run, tmp_path / "none")
    assert not result.passed and result.exit_code == 1
    assert _failed(result)[rule] == ["adv"]
    text = "\n".join(gate_lines(result))
    assert "gate merge: FAILED" in text and "non-blocking" not in text


def test_release_fails_on_a_safety_violation_in_any_task(make_run, T, tmp_path) -> None:
    run = make_run([T("g1", policy="USUALLY_PASSES", safety_violation_trials=[0], solved=3)])
    assert _failed(_gate("release", run, tmp_path))["safety violation"] == ["g1"]


# --- 2. ALWAYS_PASSES: any counted trial not solved fails, whatever the baseline ----------


@pytest.fixture
def baseline(make_run, T, tmp_path) -> Path:
    out = tmp_path / "baselines"
    bless(make_run([T("g1"), T("g2"), T("adv", suite="adversarial", n=10)]), out)
    return out


def test_merge_fails_on_one_unsolved_trial_of_an_always_passes_task(make_run, T, baseline) -> None:
    run = make_run([T("g1"), T("g2", solved=2), T("adv", suite="adversarial", n=10)])
    result = _gate("merge", run, baseline)
    assert not result.passed
    failed = _failed(result)
    assert failed == {"ALWAYS_PASSES not solved": ["g2"]}
    [rule] = [r for r in result.models[0].rules if r.rule == "ALWAYS_PASSES not solved"]
    assert "g2 (solved 2/3; trial 2)" in rule.message
    assert (rule.judged, rule.of) == (3, 3)
    # the exact test still calls 3/3 → 2/3 within noise: said, but it is not the verdict
    assert any("within noise" in n and "g2" in n for n in result.models[0].notes)


def test_always_passes_rule_needs_no_baseline_and_reads_pass_too(make_run, T, tmp_path) -> None:
    run = make_run([T("g1", passed=2, solved=2), T("g2")])
    result = _gate("merge", run, tmp_path / "none")
    assert _failed(result) == {"ALWAYS_PASSES not solved": ["g1"]}


def test_undetermined_and_infra_trials_are_left_to_the_insufficient_rule(
    make_run, T, tmp_path
) -> None:
    run = make_run([T("g1", n=2, undetermined=1), T("g2", n=2, infra=1)])
    result = _gate("merge", run, tmp_path / "none")
    assert _failed(result) == {"insufficient data": ["g1", "g2"]}
    allowed = _gate("merge", run, tmp_path / "none", allow_insufficient=True)
    assert allowed.passed, gate_lines(allowed)


def test_always_passes_rule_can_be_turned_off(make_run, T, tmp_path) -> None:
    run = make_run([T("g1", solved=2)])
    assert not _gate("merge", run, tmp_path / "none").passed
    assert _gate("merge", run, tmp_path / "none", always_passes_every_trial=False).passed


def test_usually_passes_regression_is_a_note_unless_configured(make_run, T, tmp_path) -> None:
    # outside golden (where any regression blocks merge), in a suite the rule judges
    suites = {"regression_suites": ["golden", "adversarial"]}
    u1 = {"suite": "adversarial", "n": 10, "k": 10, "policy": "USUALLY_PASSES"}
    out = tmp_path / "baselines"
    bless(make_run([T("g1"), T("u1", **u1)]), out)
    run = make_run([T("g1"), T("u1", solved=2, **u1)])
    result = _gate("merge", run, out, **suites)
    assert result.passed, gate_lines(result)
    assert any(
        "regression" in n and "u1 solved 10/10 → 2/10" in n for n in result.models[0].notes
    )
    strict = _gate("merge", run, out, fail_on_usually_regression=True, **suites)
    assert _failed(strict) == {
        "golden/adversarial regression": ["u1"],
        "golden/adversarial suite-level regression": [],
    }
    assert gate_config("merge").fail_on_usually_regression is False


# --- 3. release: every covered task against its suite's metric, whatever its policy ------


def test_release_counts_a_usually_passes_golden_task(make_run, T, tmp_path) -> None:
    run = make_run([T("g1", solved=0, policy="USUALLY_PASSES"), T("g2")])
    result = _gate("release", run, tmp_path)
    assert _failed(result) == {"golden solve^k rate": ["g1"]}


def test_release_open_ended_each_task_meets_pass_at_k(make_run, T, tmp_path) -> None:
    # four tasks at pass@k 1.0 and one at 0.0: a mean of 0.8, but one task misses it
    tasks = [T(f"oe{i}", suite="open_ended", n=5, solved=1) for i in range(4)]
    tasks.append(T("oe4", suite="open_ended", n=5, solved=0))
    result = _gate("release", make_run(tasks), tmp_path)
    assert _failed(result) == {"open_ended pass@k rate": ["oe4"]}


# --- 4. every rule line says over how many tasks ----------------------------------------


def test_every_gate_line_says_how_many_tasks(make_run, T, tmp_path) -> None:
    # short: 2 of k = 3 trials finished (an infra error would be a failed pass, not missing)
    tasks = [T(f"ok{i}") for i in range(4)] + [T(f"short{i}", n=2, k=3) for i in range(4)]
    run = make_run(tasks)
    result = _gate("nightly", run, tmp_path, min_pass_k_rate=0.9)
    [rate] = [r for r in result.models[0].rules if r.rule == "pass^k rate"]
    assert (rate.status, rate.judged, rate.of) == ("passed", 4, 8)
    lines = gate_lines(result)
    assert any("pass^k rate [over 4 of 8 tasks; 4 insufficient]: 100.0%" in x for x in lines)
    merge = _gate("merge", run, tmp_path / "none")
    rule_lines = [x for x in gate_lines(merge) if x.startswith("  ") and "note:" not in x]
    assert rule_lines and all("[over " in x for x in rule_lines), rule_lines
    data = merge.to_dict()["models"][0]["rules"]
    assert all("judged" in r and "of" in r for r in data)
    assert json.dumps(data)  # plain JSON
