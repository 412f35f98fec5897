"""A run reader folds each (task, model) into one record: the summary's own `Tally`,
which tracking's `TrialTally` extends. What tracking reads of it is what a tally of the
counted lines alone gives (failed graders and error kinds in the order they first
failed), and the summary rows are those of a plain `Tally`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import NO_COUNTS, Tally
from trialrun.metrics._summary import row_of
from trialrun.metrics._task_meta import UNLISTED
from trialrun.rundir import Manifest, ResultLine, RunDir
from trialrun.tracking import load_run
from trialrun.tracking._counts import view_of_run
from trialrun.tracking._trial_tally import TrialFigures, TrialTally

MODEL = "openai-compat:one-tally-2026-01-01"
GRADERS = ("contains", "forbiddenTools", "judge")


@st.composite
def lines(draw: st.DrawFn) -> list[ResultLine]:
    """One task's lines in file order: infra errors (some with failed verdicts, before
    or after counted ones), other errors, safety violations, numbers or none."""
    out = []
    for trial in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from([None, None, "infra", "timeout", "agent"]))
        verdicts: list[dict[str, Any]] = [
            {"grader": g, "passed": draw(st.sampled_from([True, False, None])),
             "details": {"safety_violation": draw(st.booleans()), "reason": f"r{trial}"}}
            for g in draw(st.lists(st.sampled_from(GRADERS), max_size=3, unique=True))
        ]
        number = st.one_of(st.none(), st.integers(0, 9), st.floats(0, 9, allow_nan=False))
        out.append(ResultLine(
            task_id="t", model=MODEL, trial=trial, passed=draw(st.sampled_from([True, False])),
            solve=draw(st.sampled_from([True, False, None])), verdicts=verdicts,
            error={"kind": kind, "message": "x"} if kind else None,
            safety_violation=draw(st.booleans()), turns=draw(number),
            latency_s=draw(number), cost_usd=draw(number),
            tokens={"prompt": draw(number), "completion": draw(number)},
            tool_calls=[{"name": "x", "arguments": {}, "ok": True}] * draw(st.integers(0, 2)),
        ))
    return out


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _per_counted_trial(counted: list[ResultLine], names: Any) -> list[tuple[str, int]]:
    """(name, trials) in the order each name first appears over the counted lines."""
    out: dict[str, int] = {}
    for line in counted:
        for name in dict.fromkeys(names(line)):
            out[name] = out.get(name, 0) + 1
    return list(out.items())


@settings(max_examples=300, deadline=None)
@given(lines())
def test_tracking_reads_what_the_counted_lines_say(task: list[ResultLine]) -> None:
    tally = TrialTally()
    for line in task:
        tally.add(line)
    counted = [line for line in task if not line.is_infra]
    failed = _per_counted_trial(counted, lambda line: [
        str(v["grader"]) for v in line.verdicts if v.get("passed") is False])
    errors = _per_counted_trial(counted, lambda line: [line.error_kind] if line.error_kind else [])
    assert list(tally.failed_graders.items()) == failed
    assert list(tally.errors.items()) == errors
    assert (tally.finished, tally.counted) == (len(task), len(counted))
    # sums exactly rounded (math.fsum over the lines), whatever the order they came in
    assert tally.latency_total_s == math.fsum(_num(line.latency_s) for line in task)
    n = len(counted)
    metrics = tally.metrics()
    assert metrics["turns"] == (math.fsum(_num(x.turns) for x in counted) / n if n else None)
    assert metrics["tool_calls"] == (sum(len(x.tool_calls) for x in counted) / n if n else None)
    assert list(metrics["latencies_s"]) == [
        round(float(x.latency_s), 6) for x in counted
        if isinstance(x.latency_s, (int, float)) and not isinstance(x.latency_s, bool)]
    unsafe = sorted(line.trial for line in task if line.safety_violation)
    assert (tally.safety_trials.count, tally.safety_trials.first) == (len(unsafe),
                                                                      tuple(unsafe[:8]))
    not_solved = [x.trial for x in counted if x.solve is False or x.passed is False]
    assert tally.not_solved.count == len(not_solved)
    plain = Tally()
    for line in task:
        plain.add(line)
    assert (row_of("t", MODEL, UNLISTED, tally, 3).to_json()
            == row_of("t", MODEL, UNLISTED, plain, 3).to_json())


def _write_run(out: Path, tasks: int = 4, k: int = 3) -> Path:
    metas: list[dict[str, Any]] = [{"task_id": f"t{i}", "suite": "golden", "k": k}
                                   for i in range(tasks)]
    manifest = Manifest(run_id="one", started_at="2026-01-01T00:00:00+00:00", models=[MODEL],
                        trialrun_version="test", tasks=metas)
    run = RunDir.create(out, "one", manifest, fsync=False)
    for meta in metas:
        for trial in range(k):
            run.append(ResultLine(
                task_id=str(meta["task_id"]), model=MODEL, trial=trial, passed=True,
                solve=trial != 1, verdicts=[{"grader": "contains", "passed": trial != 1}],
                turns=2, cost_usd=0.001, latency_s=0.5 + trial), sync=False)
    run.close()
    return run.path


def test_each_task_is_read_into_the_summarys_own_tally(tmp_path: Path) -> None:
    run = load_run(_write_run(tmp_path / "results"))
    for record in run.records:
        # what the summary's own tally (a TrialTally) kept once the row was made
        assert isinstance(record.trials, TrialFigures)
        assert record.trials.lines == record.trials.finished == 3
        assert record.trials.failed_graders is record.row.failed_graders  # counted once


def test_a_read_tally_keeps_its_latencies_and_lets_the_summary_figures_go(
    tmp_path: Path
) -> None:
    run = load_run(_write_run(tmp_path / "results"))
    first, second = (r.trials for r in run.records[:2])
    assert (first.turn_sum, first.turn_count) == (second.turn_sum, 3) == (6.0, 3)
    assert list(first.latencies_s) == [0.5, 1.5, 2.5]
    assert first.metrics()["turns"] == 2.0 and first.metrics()["cost_usd"] == 0.001
    assert not hasattr(first, "add") and not hasattr(first, "first")  # figures, no tally
    assert not hasattr(first, "__dict__")


def test_the_shared_empty_counts_cannot_be_written() -> None:
    with pytest.raises(TypeError):
        NO_COUNTS["contains"] = 1  # type: ignore[index]
    a, b = Tally(), Tally()
    b.add(ResultLine(task_id="t", model=MODEL, trial=0, passed=True, solve=False,
                     verdicts=[{"grader": "contains", "passed": False}],
                     error={"kind": "timeout", "message": "slow"}))
    assert a.failed is a.error_kinds is NO_COUNTS and len(NO_COUNTS) == 0
    assert (dict(b.failed), dict(b.error_kinds)) == ({"contains": 1}, {"timeout": 1})


def test_a_compared_task_holds_its_metrics_as_sums_not_a_dict(tmp_path: Path) -> None:
    """A comparison keeps each task's counts of the first run while it reads the second:
    its metrics are made when read, from the tally's sums and its own latencies."""
    run = load_run(_write_run(tmp_path / "results"))
    view = view_of_run(run, MODEL)
    for record in run.records:
        metrics = view.tasks[record.task_id].metrics
        assert not isinstance(metrics, dict) and not hasattr(metrics, "__dict__")
        assert dict(metrics) == record.metrics()
        assert list(metrics) == list(record.metrics())  # the baseline entry's key order
    with pytest.raises(KeyError):
        view.tasks["t0"].metrics["nope"]
