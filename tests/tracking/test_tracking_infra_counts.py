"""Every consumer of the counts treats an infra error as a failed pass, left out of solve.

Scribe: pass = "the run completed without harness errors", so an infra-error trial is a
failed pass. compare's pass test and the gates' pass^k figures count it; solve^k, pass@k
and the insufficient-data rule leave it out (a task with infra errors is insufficient
through the solve denominator). Early stop reads a task's counts as compare does. A
baseline marks the counting rule (`pass_n`); an older one's counts read under today's
rule, and a stored summary.json counted the old way is recomputed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trialrun.config import ProjectConfig
from trialrun.rundir import RunDir
from trialrun.tracking import bless, compare, load_run, run_gate
from trialrun.tracking._aggregate import counts_of_entry
from trialrun.tracking._early_stop import baseline_counts
from trialrun.tracking._open_answer import Counts
from trialrun.tracking._settle import Settlement

MODEL = "gemini:gemini-2.5-flash"


def _gate(gate: str, run: Path, where: Path, **config) -> object:
    project = ProjectConfig(data={"gates": {gate: config}}) if config else ProjectConfig()
    return run_gate(gate, run, baselines_dir=where, config=project)


def test_an_infra_error_drops_the_passed_fraction_compare_tests(make_run, T) -> None:
    before = make_run([T("a", n=3)])
    after = make_run([T("a", n=0, infra=3)])  # every trial an infra error (after re-runs)
    [delta] = compare(after, before).tasks
    assert (delta.after.passed, delta.after.n) == (0, 3)  # 3 finished, none passed
    assert (delta.after.solved, delta.after.solve_n) == (0, 0)  # nothing to solve-count
    assert delta.pass_dropped and delta.p_pass == pytest.approx(1 / 20)  # C(6,3) = 20
    assert delta.label == "regression"
    assert "passed 3/3 → 0/3" in delta.describe()


def test_the_gates_pass_k_figure_counts_infra_errors(make_run, T, tmp_path) -> None:
    run = make_run([T("ok"), T("flaky", n=2, infra=1, k=3)])
    result = _gate("nightly", run, tmp_path, min_pass_k_rate=0.9)
    [rate] = [r for r in result.models[0].rules if r.rule == "pass^k rate"]
    # judged over both tasks: the infra error makes flaky's pass^k C(2,3)/C(3,3) = 0
    assert (rate.status, rate.judged, rate.of) == ("failed", 2, 2)
    assert "flaky (passed 2/3)" in rate.message


def test_infra_errors_make_a_task_insufficient_through_solve_only(make_run, T, tmp_path) -> None:
    run = make_run([T("a", n=2, infra=1, k=3)])
    [record] = load_run(run).records
    assert (record.pass_n, record.passed, record.pass_k) == (3, 2, 0.0)
    assert record.solve_n == 2 and record.solve_k is None and record.insufficient
    [rule] = [r for r in _gate("merge", run, tmp_path).models[0].rules
              if r.rule == "insufficient data"]  # fmt: skip
    assert rule.status == "failed" and "a (2 counted of k=3; 1 infra" in rule.message


def test_a_baseline_marks_the_rule_and_an_older_one_reads_under_it(make_run, T, tmp_path) -> None:
    [blessed] = bless(make_run([T("a", n=3, infra=1, k=4)]), tmp_path / "bl", force=True,
                      reason="infra on purpose")  # fmt: skip
    data = json.loads(blessed.path.read_text())
    [entry] = data["tasks"]
    assert (entry["n"], entry["pass_n"], entry["infra_errors"]) == (3, 4, 1)
    assert entry["pass_k"] == 0.0  # 3 of 4 finished trials passed: C(3,4)/C(4,4)
    counts = counts_of_entry(entry)
    assert (counts.pass_n, counts.solve_n, counts.pass_k) == (4, 3, 0.0)
    # the same entry as blessed before `pass_n`: infra left out of pass too, 3 < k = 4
    old = {key: value for key, value in entry.items() if key != "pass_n"} | {"pass_k": None}
    counts = counts_of_entry(old)
    assert counts.pass_n == 4 and counts.pass_k == 0.0
    clean = old | {"infra_errors": 0, "pass_k": 0.5}
    assert counts_of_entry(clean).pass_k == 0.5  # no infra error: read as written


def test_a_summary_counted_the_old_way_is_recomputed(make_run, T) -> None:
    run = make_run([T("a", n=2, infra=1, k=3)])
    stored = json.loads((run / "summary.json").read_text())
    for row in stored["tasks"]:  # as an older trialrun wrote it: infra out of pass too
        del row["pass_n"]
        row["pass_k"] = None
    (run / "summary.json").write_text(json.dumps(stored))
    [record] = load_run(run).records
    assert record.pass_k == 0.0 and record.pass_n == 3


def test_early_stop_counts_a_task_as_compare_does(make_run, T, tmp_path) -> None:
    spec = T("a", n=3, passed=2, solved=1, infra=2, undetermined=1, k=6)
    run = make_run([spec])
    settlement = Settlement(enabled=True)
    for line in RunDir.open(run).iter_results():
        settlement.seen(line)
    [delta] = compare(run, make_run([T("a", n=6)])).tasks
    side = delta.after
    assert settlement.tallies[("a", MODEL)].counts() == Counts(
        side.passed, side.n, side.solved, side.solve_n
    ) == Counts(passed=3, n=6, solved=1, solve_n=3)  # 2 + the undetermined pass; 6 finished
    # and a baseline's counts as early stop reads them: pass over every finished trial
    bless(run, tmp_path / "bl", force=True, reason="infra on purpose")
    read = baseline_counts(tmp_path / "bl", [MODEL], [])
    assert read[("a", MODEL)] == Counts(passed=3, n=6, solved=1, solve_n=3)
