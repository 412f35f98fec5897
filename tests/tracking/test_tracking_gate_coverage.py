"""Gates judge what ran and name what did not (trialrun issue 25, item 2).

Merge fails when a suite it covers (golden, adversarial, failure_replays) or a task of the
model's baseline is missing from the run, unless `allow_missing` lets it; release checks
what merge checks plus all four suites; a golden regression blocks merge whatever the
task's policy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.reports import gate_lines
from trialrun.tracking import bless, gate_config, run_gate
from trialrun.tracking._gate_config import DEFAULTS, SUITES, GateConfig

MERGE_SUITES = ["golden", "adversarial", "failure_replays"]


def _by_status(result, status: str = "failed") -> dict[str, list[str]]:
    return {r.rule: r.tasks for m in result.models for r in m.rules if r.status == status}


def _rule(result, name: str):
    [rule] = [r for m in result.models for r in m.rules if r.rule == name]
    return rule


def _gate(gate: str, run: Path, where: Path, **config):
    project = ProjectConfig(data={"gates": {gate: config}}) if config else ProjectConfig()
    return run_gate(gate, run, baselines_dir=where, config=project)


def _every_suite(T, **overrides) -> list:
    return [
        T("g1", **overrides),
        T("g2", **overrides),
        T("adv", suite="adversarial", n=10, **overrides),
        T("fr", suite="failure_replays", n=5, **overrides),
        T("oe", suite="open_ended", n=5, **overrides),
    ]


@pytest.fixture
def baselines(make_run, T, tmp_path) -> Path:
    out = tmp_path / "baselines"
    bless(make_run(_every_suite(T)), out)
    return out


# --- suites a gate covers must have run --------------------------------------------------


def test_merge_fails_naming_the_suites_a_golden_only_run_left_out(make_run, T, tmp_path):
    run = make_run([T("g1"), T("g2")])
    result = _gate("merge", run, tmp_path / "none")
    assert not result.passed and _by_status(result) == {"suite missing": []}
    line = next(x for x in gate_lines(result) if x.startswith("  FAIL"))
    assert line == (
        "  FAIL suite missing [over 2 tasks]: no adversarial, failure_replays task in this "
        "run's merge gate; run the suite, or list it in trialrun.toml under [gates.merge] "
        "allow_missing"
    )


def test_a_healthy_run_of_every_merge_suite_passes(make_run, T, baselines):
    result = _gate("merge", make_run(_every_suite(T)), baselines)
    assert result.passed, gate_lines(result)
    assert _rule(result, "suite missing").message == (
        "each of golden, adversarial, failure_replays ran"
    )
    assert (_rule(result, "baseline task missing").judged) == 4  # open_ended: not merge's


def test_a_suite_whose_tasks_are_all_out_of_the_gate_is_missing(make_run, T, tmp_path):
    run = make_run(
        [T("g1"), T("adv", suite="adversarial", n=10, gates={"ci_merge_gate": False}),
         T("fr", suite="failure_replays", n=5)]
    )
    rule = _rule(_gate("merge", run, tmp_path / "none"), "suite missing")
    assert rule.status == "failed" and "no adversarial task" in rule.message


@pytest.mark.parametrize(
    ("allow", "status", "still_missing"),
    [
        (True, "warned", None),
        (["adversarial", "failure_replays"], "warned", None),
        (["adversarial"], "failed", "no failure_replays task"),
        (["adv*"], "failed", "no failure_replays task"),  # a glob names suites too
        (False, "failed", "no adversarial, failure_replays task"),
    ],
)
def test_allow_missing_opts_out(make_run, T, tmp_path, allow, status, still_missing):
    run = make_run([T("g1")])
    result = _gate("merge", run, tmp_path / "none", allow_missing=allow)
    rule = _rule(result, "suite missing")
    assert rule.status == status
    assert result.passed is (status == "warned")
    if still_missing is None:
        assert rule.message.startswith("allowed by allow_missing: adversarial, failure_replays")
    else:
        assert still_missing in rule.message


def test_nightly_requires_no_suite_by_default_but_can(make_run, T, tmp_path):
    run = make_run([T("g1")])
    assert _gate("nightly", run, tmp_path / "none").passed
    assert gate_config("nightly").required_suites == []
    strict = _gate("nightly", run, tmp_path / "none", required_suites=["adversarial"])
    assert "no adversarial task" in _rule(strict, "suite missing").message


def test_an_empty_gate_is_the_empty_rules_alone(make_run, T, tmp_path):
    run = make_run([T("oe", suite="open_ended", n=5)])
    assert _by_status(_gate("merge", run, tmp_path / "none")) == {"no tasks": []}


# --- tasks of the baseline must have run -------------------------------------------------


def test_a_baseline_task_missing_from_the_run_fails_naming_it(make_run, T, baselines):
    run = make_run([t for t in _every_suite(T) if t.task_id not in ("g2", "oe")])
    result = _gate("merge", run, baselines)
    assert _by_status(result) == {"baseline task missing": ["g2"]}
    rule = _rule(result, "baseline task missing")
    assert rule.message == (
        "in the baseline, not in this run: g2 (golden); run them, or list them in "
        "trialrun.toml under [gates.merge] allow_missing"
    )
    assert rule.judged == 4
    # a glob, or the task's suite, lets it go missing (a warning that names it)
    for allow in (["g*"], ["golden"], True):
        allowed = _gate("merge", run, baselines, allow_missing=allow)
        assert allowed.passed, (allow, gate_lines(allowed))
        assert _by_status(allowed, "warned") == {"baseline task missing": ["g2"]}


def test_release_also_wants_the_open_ended_baseline_task(make_run, T, baselines):
    run = make_run(
        [t for t in _every_suite(T) if t.task_id != "oe"] + [T("oe2", suite="open_ended", n=5)]
    )
    assert _gate("merge", run, baselines).passed
    release = _gate("release", run, baselines)
    assert _by_status(release) == {"baseline task missing": ["oe"]}


# --- release: what merge checks, and every suite -----------------------------------------


def test_release_fails_on_a_missing_suite(make_run, T, tmp_path):
    run = make_run([t for t in _every_suite(T) if t.suite != "open_ended"])
    result = _gate("release", run, tmp_path / "none")
    assert not result.passed
    assert "no open_ended task" in _rule(result, "suite missing").message
    # the open_ended threshold has no task to judge: skipped, the suite rule fails
    assert _rule(result, "open_ended pass@k rate").status == "skipped"
    allowed = _gate("release", run, tmp_path / "none", allow_missing=["open_ended"])
    assert allowed.passed, gate_lines(allowed)


def test_release_checks_every_key_merge_checks() -> None:
    merge, release = gate_config("merge"), gate_config("release")
    stricter = {"blocking_policy", "required_suites", "suites"}
    for key in DEFAULTS["merge"]:
        if key not in stricter:
            assert getattr(release, key) == getattr(merge, key), key
    assert release.blocking_policy == "any"  # every task can fail it
    assert set(merge.required_suites) == set(MERGE_SUITES)
    assert release.required_suites == list(SUITES)


def test_release_fails_on_a_cost_increase_and_a_golden_regression(make_run, T, baselines):
    run = make_run(_every_suite(T, cost_usd=0.002))
    assert "cost increase" in _by_status(_gate("release", run, baselines))
    worse = make_run([T("g1", solved=0, policy="USUALLY_PASSES"), *_every_suite(T)[1:]])
    relaxed = {"golden": {"min_solve_k": False}}
    failed = _by_status(_gate("release", worse, baselines, suites=relaxed))
    assert failed["golden regression"] == ["g1"]


# --- a golden regression blocks merge whatever the task's policy -------------------------


def test_golden_usually_passes_task_dropping_3_of_3_to_0_of_3_fails_merge(make_run, T, tmp_path):
    out = tmp_path / "baselines"
    tasks = [T("adv", suite="adversarial", n=10), T("fr", suite="failure_replays", n=5)]
    bless(make_run([T("g1"), T("g2", policy="USUALLY_PASSES"), *tasks]), out)
    run = make_run([T("g1"), T("g2", solved=0, policy="USUALLY_PASSES"), *tasks])
    result = _gate("merge", run, out)
    failed = _by_status(result)
    assert failed["golden regression"] == ["g2"]
    assert "g2 solved 3/3 → 0/3" in _rule(result, "golden regression").message
    assert "golden suite-level regression" in failed
    # the old reading (a USUALLY_PASSES regression is a note) is one key away
    lenient = _gate("merge", run, out, regression_blocks_any_policy_in=[])
    assert lenient.passed, gate_lines(lenient)
    assert any("regression, not blocking here: g2" in n for n in lenient.models[0].notes)


# --- the config ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("required_suites", ["golden", "smoke"], "unknown suite 'smoke'"),
        ("regression_blocks_any_policy_in", ["gold"], "unknown suite 'gold'"),
        ("allow_missing", ["golden", " "], "an empty name"),
        ("alow_missing", True, "did you mean 'allow_missing'"),
    ],
)
def test_bad_coverage_keys_are_one_line_user_errors(key, value, says) -> None:
    project = ProjectConfig(data={"gates": {"merge": {key: value}}})
    with pytest.raises(UserError, match=says) as info:
        gate_config("merge", project)
    assert "\n" not in str(info.value) and "[gates.merge]" in str(info.value)


_ID = st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=12)


@given(task_id=_ID, suite=st.sampled_from(SUITES), listed=st.lists(_ID, max_size=3))
def test_allow_missing_matches_names_and_globs(task_id, suite, listed) -> None:
    names = [n for n in listed if not set(n) & set("*?[]")]
    assert GateConfig(allow_missing=True).allows_missing(task_id, suite)
    assert not GateConfig(allow_missing=False).allows_missing(task_id, suite)
    assert GateConfig(allow_missing=[*names, task_id]).allows_missing(task_id, suite)
    assert GateConfig(allow_missing=[suite]).allows_missing(task_id, suite)
    assert GateConfig(allow_missing=["*"]).allows_missing(task_id, suite)
    others = [n for n in names if n not in (task_id, suite)]
    assert not GateConfig(allow_missing=others).allows_missing(task_id, suite)
