"""What the run readers keep per task is shared where it repeats, and a run is let go
once its counts are taken: the structure behind their memory at 10,000 tasks."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from cli_support import cli
from trialrun.metrics import NO_COUNTS
from trialrun.rundir import Manifest, ResultLine, RunDir
from trialrun.tracking import RunData, compare_runs, load_run, run_gate
from trialrun.tracking._trial_tally import Offenders, TrialTally

MODEL = "openai-compat:shared-model-2026-01-01"
TASKS = 6


def _write_run(out: Path, run_id: str = "shared") -> Path:
    metas: list[dict[str, Any]] = [
        {"task_id": f"task-{i}", "suite": "golden", "tier": "T1", "tags": ["smoke"], "k": 3,
         "metric": "pass^k", "policy": "ALWAYS_PASSES"}
        for i in range(TASKS)
    ]
    manifest = Manifest(run_id=run_id, started_at="2026-01-01T00:00:00+00:00", models=[MODEL],
                        trialrun_version="test", tasks=metas)
    run = RunDir.create(out, run_id, manifest, fsync=False)
    for meta in metas:
        for trial in range(3):
            run.append(ResultLine(
                task_id=str(meta["task_id"]), model=MODEL, trial=trial, passed=True,
                solve=trial != 1, provider="openai-compat",
                verdicts=[{"grader": "contains", "passed": trial != 1}], turns=1,
                tokens={"prompt": 10, "cached": 0, "completion": 2}, cost_usd=0.001,
                latency_s=0.5, extra={"suite": "golden", "tier": "T1"}), sync=False)
    run.close()
    return run.path


def test_records_share_the_model_id_and_gate_flags(tmp_path: Path) -> None:
    records = load_run(_write_run(tmp_path / "results")).records
    assert len(records) == TASKS
    assert len({id(r.model_id) for r in records}) == 1
    assert len({id(r.gates) for r in records}) == 1


def test_run_json_task_text_is_one_object_per_distinct_value(tmp_path: Path) -> None:
    tasks = load_run(_write_run(tmp_path / "results")).manifest.tasks
    for key in ("suite", "tier", "metric", "policy"):
        assert len({id(t[key]) for t in tasks}) == 1, key
    assert len({id(t["tags"][0]) for t in tasks}) == 1


def test_a_rule_nobody_broke_holds_no_list() -> None:
    clean = Offenders()
    assert isinstance(clean.first, tuple) and clean.first is Offenders().first  # the one ()
    for trial in (9, 3, 7, 1, 12, 0, 5, 2, 8, 4):
        clean.add(trial)
    assert clean.first == (0, 1, 2, 3, 4, 5, 7, 8) and clean.count == 10
    assert clean.names() == "0, 1, 2, 3, 4, 5, 7, 8 and 2 more"
    a, b = TrialTally(), TrialTally()
    assert a.safety_trials is b.safety_trials is a.forbidden is a.not_solved  # one "nobody"
    b.add(ResultLine(task_id="t", model=MODEL, trial=4, passed=True, solve=False,
                     safety_violation=True))
    assert (b.safety_trials.count, b.not_solved.first, b.forbidden.count) == (1, (4,), 0)
    assert (a.safety_trials.count, a.not_solved.count) == (0, 0)  # the shared one untouched


def _live_runs() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, RunData))


def test_compare_lets_the_first_run_go_before_reading_the_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _write_run(tmp_path / "a", "a"), _write_run(tmp_path / "b", "b")
    held: list[int] = []
    real = load_run

    def counting(run_dir: Path | str, **kwargs: Any) -> RunData:
        held.append(_live_runs())
        return real(run_dir, **kwargs)

    monkeypatch.setattr("trialrun.tracking._compare.load_run", counting)
    before = _live_runs()
    [comparison] = compare_runs(first, second)
    assert held == [before, before]  # the first run was let go before the second was read
    assert comparison.against == str(second) and len(comparison.tasks) == TASKS


def test_the_gate_reads_a_run_it_is_given_no_second_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = load_run(_write_run(tmp_path / "results"))
    reads: list[object] = []
    real = load_run

    def counting(run_dir: Path | str, **kwargs: Any) -> RunData:
        reads.append(run_dir)
        return real(run_dir, **kwargs)

    monkeypatch.setattr("trialrun.tracking._gates.load_run", counting)
    given = run_gate("merge", run, baselines_dir=tmp_path / "none")
    read = run_gate("merge", run.path, baselines_dir=tmp_path / "none")
    assert reads == [run.path]
    assert given.passed == read.passed and given.to_dict() == read.to_dict()


def test_one_latency_array_serves_the_summary_and_the_record(tmp_path: Path) -> None:
    """The record's tally is the summary's own: the latencies it holds are the ones the
    summary collected (counted lines, numeric latencies, file order)."""
    run = load_run(_write_run(tmp_path / "results"))
    for record in run.records:
        assert list(record.trials.latencies_s) == [0.5, 0.5, 0.5]
        assert record.trials.latencies_s is record.trials.latencies
    tally = TrialTally()
    tally.add(ResultLine(task_id="t", model=MODEL, trial=0, passed=True, solve=True,
                         latency_s=2.0))
    tally.add(ResultLine(task_id="t", model=MODEL, trial=1, passed=True, solve=True,
                         latency_s=None))
    assert list(tally.latencies_s) == [2.0] and tally.counted == 2


def test_the_compare_command_holds_one_run_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _write_run(tmp_path / "a", "a"), _write_run(tmp_path / "b", "b")
    held: list[int] = []

    def counting(run_dir: Path | str, **kwargs: Any) -> RunData:
        held.append(_live_runs())
        return load_run(run_dir, **kwargs)

    monkeypatch.setattr("trialrun.tracking._compare.load_run", counting)
    monkeypatch.setattr("trialrun.tracking.load_run", counting)
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "compare", first, "--against", second, "--json")
    assert code == 0, err
    assert held == [0, 0]  # each run read once, the first let go before the second
    [item] = json.loads(out)["comparisons"]
    assert item["found"] and item["comparison"]["against"] == str(second)


def test_counts_nobody_has_are_one_shared_empty_dict() -> None:
    a, b = TrialTally(), TrialTally()
    assert a.failed_graders is b.errors is NO_COUNTS
    b.add(ResultLine(task_id="t", model=MODEL, trial=0, passed=True, solve=False,
                     verdicts=[{"grader": "contains", "passed": False}],
                     error={"kind": "timeout", "message": "slow"}))
    assert (b.failed_graders, b.errors) == ({"contains": 1}, {"timeout": 1})
    assert NO_COUNTS == {} and a.failed_graders == {}
    with pytest.raises(TypeError):  # read-only: no tally can count into the shared one
        NO_COUNTS["contains"] = 1  # type: ignore[index]
