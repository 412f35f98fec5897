"""Per-task trajectory figures in summary.json and the end table."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from trialrun.metrics import summarize, trajectory_row
from trialrun.reports import render_summary
from trialrun.rundir import ResultLine

M = "scripted:x"


def line(trial: int, repeated: int | None, errors: int | None, recovered: bool | None,
         first: float | None, *, infra: bool = False) -> ResultLine:
    return ResultLine(
        task_id="loop", model=M, trial=trial, passed=None if infra else True,
        solve=None if infra else True,
        error={"kind": "infra", "message": "x"} if infra else None,
        repeated_calls=repeated, tool_errors=errors, recovered=recovered,
        time_to_first_tool_s=first, extra={"k": 3},
    )


def test_row_figures_over_counted_trials() -> None:
    lines = [line(0, 3, 4, False, 0.5), line(1, 0, 1, True, 0.1), line(2, 0, 0, None, None),
             line(3, 9, 9, False, 9.0, infra=True)]
    summary = summarize(lines, k=3)
    [row] = summary.tasks
    assert row.trajectory.repeated_calls == 1.0 and row.trajectory.tool_errors == 5 / 3
    assert row.trajectory.recovered_rate == 0.5 and row.trajectory.trials_with_tool_errors == 2
    assert row.trajectory.time_to_first_tool_s == pytest.approx(0.3)  # median of 0.5 and 0.1
    out = io.StringIO()
    render_summary(summary, Console(file=out, width=250))
    text = out.getvalue()
    assert "repeated calls 1.0/trial" in text
    assert "tool errors 1.7/trial (recovered 1/2 trials)" in text
    assert "first tool 0.300s" in text


def test_lines_without_figures_add_nothing() -> None:
    assert trajectory_row([line(0, None, None, None, None)]) is None
    [row] = summarize([line(0, None, None, None, None)], k=1).tasks
    assert row.trajectory is None and "repeated_calls" not in row.to_json()


def test_no_failed_call_means_no_recovery_rate() -> None:
    figures = trajectory_row([line(0, 0, 0, None, 0.2)])
    assert figures is not None
    assert figures.recovered_rate is None and figures.tool_errors == 0.0


def test_trajectory_figures_are_trackable() -> None:
    lines = [line(0, 2, 1, True, 0.4), line(1, 0, 0, None, 0.2)]
    meta = [{"task_id": "loop", "k": 2, "tracked_metrics": [
        "repeated_calls", "tool_errors", "recovered_rate", "time_to_first_tool_s"]}]
    [row] = summarize(lines, meta, k=2).tasks
    assert row.tracked == {"repeated_calls": 1.0, "tool_errors": 0.5, "recovered_rate": 1.0,
                              "time_to_first_tool": pytest.approx(0.3)}
