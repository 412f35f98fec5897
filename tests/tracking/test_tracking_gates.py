from __future__ import annotations

import json

import pytest

import trialrun
from cli_support import cli_process
from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.reports import gate_lines
from trialrun.tracking import bless, run_gate

# a golden-only run is short of the merge gate's other suites: allowed where a test is
# about another rule (tests/tracking/test_tracking_gate_coverage.py tests coverage)
GOLDEN_ONLY = ProjectConfig(
    data={"gates": {"merge": {"allow_missing": ["adversarial", "failure_replays"]}}}
)


def _rules(result, status: str = "failed") -> dict[str, list[str]]:
    return {r.rule: r.tasks for m in result.models for r in m.rules if r.status == status}


@pytest.fixture
def blessed(make_run, T, tmp_path):
    """A baseline folder with one healthy run of every suite."""
    out = tmp_path / "baselines"
    bless(
        make_run(
            [
                T("g1", n=10, k=10),
                T("g2"),
                T("adv", suite="adversarial", n=10),
                T("oe", suite="open_ended", n=5, solved=3),
                T("fr", suite="failure_replays", n=5),
            ]
        ),
        out,
    )
    return out


def _healthy(T, **overrides):
    return [
        T("g1", n=10, k=10, **overrides),
        T("g2", **overrides),
        T("adv", suite="adversarial", n=10, **overrides),
        T("oe", suite="open_ended", n=5, solved=3, **overrides),
        T("fr", suite="failure_replays", n=5, **overrides),
    ]


def test_merge_passes_on_a_healthy_run_and_cli_exits_0(make_run, T, blessed, tmp_path) -> None:
    run = make_run(_healthy(T))
    result = run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig())
    assert result.passed and result.exit_code == 0
    [model] = result.models
    assert model.covered == 4  # open_ended is not in the merge gate
    proc = cli_process("gate", "merge", str(run), "--baselines", str(blessed), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "gate merge: PASSED" in proc.stdout


def test_merge_noise_on_a_usually_passes_task_does_not_fail(make_run, T, blessed) -> None:
    run = make_run(
        [
            T("g1", n=10, k=10),
            T("g2", solved=2, policy="USUALLY_PASSES"),
            T("adv", suite="adversarial", n=10),
            T("fr", suite="failure_replays", n=5),
        ]
    )
    result = run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig())
    assert result.passed
    assert any("within noise" in n and "g2" in n for n in result.models[0].notes)


def test_merge_fails_on_each_rule(make_run, T, blessed, tmp_path) -> None:
    run = make_run(
        [
            T("g1", n=10, k=10, solved=2, latency_s=1.1, cost_usd=0.002),
            T("g2", latency_s=1.1, cost_usd=0.002),
            T(
                "adv",
                suite="adversarial",
                n=10,
                safety_violation_trials=[2],
                forbidden_trials=[5],
                latency_s=1.1,
                cost_usd=0.002,
            ),
            T("fr", suite="failure_replays", n=5, latency_s=1.1, cost_usd=0.002),
        ]
    )
    result = run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig())
    failed = _rules(result)
    assert failed == {
        "safety violation": ["adv"],
        "forbidden tool called": ["adv"],
        "ALWAYS_PASSES not solved": ["g1", "adv"],
        "golden regression": ["g1"],
        "golden suite-level regression": [],
        "P95 latency increase": [],
        "cost increase": [],
    }
    proc = cli_process("gate", "merge", str(run), "--baselines", str(blessed), cwd=tmp_path)
    assert proc.returncode == 1
    fail_lines = [line for line in proc.stdout.splitlines() if line.strip().startswith("FAIL")]
    assert len(fail_lines) == 7
    assert any(
        "golden regression [over 2 tasks]: g1 solved 10/10 → 2/10" in line for line in fail_lines
    )
    assert any("safety violation [over 4 tasks]: adv (trial 2)" in line for line in fail_lines)


def test_merge_usually_passes_drops_do_not_block(make_run, T, blessed) -> None:
    # a regression the exact test flags on a USUALLY_PASSES task is a note, not a failure
    run = make_run(
        [
            T("g1", n=10, k=10),
            T("g2"),
            T("adv", suite="adversarial", n=10, policy="USUALLY_PASSES", solved=5),
            T("fr", suite="failure_replays", n=5),
        ]
    )
    result = run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig())
    assert result.passed
    assert any(
        "regression, not blocking here: adv solved 10/10 → 5/10" in n
        for n in result.models[0].notes
    )


def test_merge_without_baseline_skips_with_a_note(make_run, T, tmp_path) -> None:
    run = make_run(_healthy(T))
    result = run_gate("merge", run, baselines_dir=tmp_path / "none", config=ProjectConfig())
    assert result.passed
    skipped = _rules(result, "skipped")
    assert set(skipped) == {"golden regression", "P95 latency increase", "cost increase"}
    assert any("no baseline" in n for n in result.models[0].notes)


def test_merge_insufficient_data_fails_unless_allowed(make_run, T, tmp_path) -> None:
    run = make_run([T("g1", n=2, infra=1), T("g2", n=2, undetermined=1)])
    result = run_gate("merge", run, baselines_dir=tmp_path, config=GOLDEN_ONLY)
    assert _rules(result) == {"insufficient data": ["g1", "g2"]}
    allowed = ProjectConfig(
        data={"gates": {"merge": {"allow_insufficient": True, "allow_missing": True}}}
    )
    assert run_gate("merge", run, baselines_dir=tmp_path, config=allowed).passed


def test_merge_thresholds_are_configurable(make_run, T, blessed, tmp_path) -> None:
    run = make_run(
        [
            T("g1", n=10, k=10, latency_s=1.03),
            T("g2", latency_s=1.03),
            T("adv", suite="adversarial", n=10, latency_s=1.03),
            T("fr", suite="failure_replays", n=5, latency_s=1.03),
        ]
    )
    assert not run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig()).passed
    (tmp_path / "trialrun.toml").write_text(
        "[gates.merge]\nmax_p95_latency_increase_ms = 50\nmin_solve_k_rate = 0.9\n"
    )
    proc = cli_process(
        "gate",
        "merge",
        str(run),
        "--baselines",
        str(blessed),
        "--config",
        str(tmp_path / "trialrun.toml"),
        "--json",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    data = json.loads(proc.stdout)
    assert data["passed"] is True and data["gate"] == "merge"
    names = {r["rule"] for r in data["models"][0]["rules"]}
    assert {"P95 latency increase", "solve^k rate"} <= names


def test_nightly_reports_trends_and_fails_only_on_thresholds(
    make_run, T, blessed, tmp_path
) -> None:
    run = make_run(
        [
            T("g1", n=10, k=10, solved=2),
            T("g2"),
            T("adv", suite="adversarial", n=10, safety_violation_trials=[1]),
            T("oe", suite="open_ended", n=5, solved=1),
        ]
    )
    result = run_gate("nightly", run, baselines_dir=blessed, config=ProjectConfig())
    assert result.passed
    text = "\n".join(gate_lines(result))
    assert "REGRESSION · drift g1" in text and "oe" in text
    proc = cli_process("gate", "nightly", str(run), "--baselines", str(blessed), cwd=tmp_path)
    assert proc.returncode == 0
    cfg = ProjectConfig(data={"gates": {"nightly": {"min_solve_k_rate": 0.75}}})
    failed = run_gate("nightly", run, baselines_dir=blessed, config=cfg)
    assert _rules(failed) == {"solve^k rate": ["g1", "oe"]}


def test_release_pass_and_fail(make_run, T, tmp_path) -> None:
    good = make_run(
        [
            T("g1"),
            T("adv", suite="adversarial", n=10),
            T("oe", suite="open_ended", n=5, solved=1),
            T("fr", suite="failure_replays", n=5),
        ]
    )
    result = run_gate("release", good, baselines_dir=tmp_path, config=ProjectConfig())
    assert result.passed, gate_lines(result)
    bad = make_run(
        [
            T("g1", solved=2),
            T("adv", suite="adversarial", n=10),
            T("oe", suite="open_ended", n=5, solved=0),
            T("oe2", suite="open_ended", n=5, solved=5),
        ]
    )
    result = run_gate("release", bad, baselines_dir=tmp_path, config=ProjectConfig())
    assert _rules(result) == {
        "suite missing": [],  # no failure_replays task
        "ALWAYS_PASSES not solved": ["g1"],  # release checks what merge checks
        "golden solve^k rate": ["g1"],
        "open_ended pass@k rate": ["oe"],
    }
    proc = cli_process("gate", "release", str(bad), "--baselines", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 1
    assert "FAIL golden solve^k rate" in proc.stdout
    relaxed = ProjectConfig(
        data={
            "gates": {
                "release": {
                    "allow_missing": ["failure_replays"],
                    "always_passes_every_trial": False,
                    "suites": {
                        "golden": {"min_solve_k": False},
                        "open_ended": {"min_pass_at_k": 0.5, "each_task": False},
                    }
                }
            }
        }
    )
    assert run_gate("release", bad, baselines_dir=tmp_path, config=relaxed).passed


def test_task_gate_flags_decide_coverage(make_run, T, tmp_path) -> None:
    run = make_run([T("g1", solved=0, gates={"ci_merge_gate": False}), T("g2")])
    result = run_gate("merge", run, baselines_dir=tmp_path, config=GOLDEN_ONLY)
    assert result.passed and result.models[0].covered == 1
    release = run_gate("release", run, baselines_dir=tmp_path, config=ProjectConfig())
    assert not release.passed


def test_empty_merge_gate_fails(make_run, T, tmp_path) -> None:
    run = make_run([T("oe", suite="open_ended", n=5)])
    result = run_gate("merge", run, baselines_dir=tmp_path, config=ProjectConfig())
    assert _rules(result) == {"no tasks": []}


def test_gate_bad_input_exits_2(make_run, T, tmp_path) -> None:
    run = make_run([T("g1")])
    (tmp_path / "bad.toml").write_text("[gates.merge]\nmax_cost_incrase_pct = 5\n")
    with pytest.raises(UserError, match="did you mean 'max_cost_increase_pct'"):
        trialrun.gate("merge", run, config=tmp_path / "bad.toml")  # the entry loads a path
    for args in (
        ["gate", "bogus", str(run)],
        ["gate", "merge", str(tmp_path / "missing")],
        ["gate", "merge", str(run), "--config", str(tmp_path / "bad.toml")],
        ["gate", "merge", str(run), "--baseline", str(tmp_path / "nope.json")],
    ):
        proc = cli_process(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert proc.stderr.startswith("trialrun: ") and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_explicit_baseline_file(make_run, T, tmp_path) -> None:
    out = tmp_path / "elsewhere"
    [item] = bless(make_run([T("g1", n=10, k=10)]), out)
    run = make_run([T("g1", n=10, k=10, solved=1)])
    result = run_gate(
        "merge", run, baseline=item.path, config=GOLDEN_ONLY, baselines_dir=tmp_path / "none"
    )
    assert _rules(result) == {
        "ALWAYS_PASSES not solved": ["g1"],
        "golden regression": ["g1"],
        "golden suite-level regression": [],
    }
