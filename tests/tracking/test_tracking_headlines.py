"""Honest headlines and figures (trialrun issue 10, items 4, 12, 13, tracked metrics).

A headline rate says over how many tasks it was taken; failed graders are counted per
trial; the power line quotes the compared tasks' own k; tracked figures are shown.
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from trialrun.reports import comparison_lines, render_run_markdown, render_summary
from trialrun.rundir import Summary
from trialrun.tracking import bless, compare, load_run


def _summary(run: Path) -> Summary:
    return Summary.from_json(json.loads((run / "summary.json").read_text()))


def _terminal(summary: Summary, width: int = 200) -> str:
    console = Console(record=True, width=width, force_terminal=False)
    render_summary(summary, console)
    return console.export_text()


def _half_insufficient(make_run, T) -> Path:
    # short: 2 of k = 3 trials finished (an infra error would count as a failed pass)
    tasks = [T(f"ok{i}") for i in range(4)] + [T(f"short{i}", n=2, k=3) for i in range(4)]
    return make_run(tasks)


def test_terminal_headline_says_over_how_many_tasks(make_run, T) -> None:
    text = _terminal(_summary(_half_insufficient(make_run, T)))
    assert "solve^k 100.0% over 4 of 8 tasks (4 insufficient)" in text
    assert "pass^k (completed) 100.0% over 4 of 8 tasks (4 insufficient)" in text


def test_side_by_side_headline_says_over_how_many_tasks(make_run, T) -> None:
    run = make_run({"a:m1": [T("x"), T("y", n=2)], "b:m2": [T("x"), T("y")]})
    text = _terminal(_summary(run))
    assert "100.0% (1/2 tasks)" in text and "100.0% (2/2 tasks)" in text


def test_markdown_headline_says_over_how_many_tasks(make_run, T) -> None:
    md = render_run_markdown(load_run(_half_insufficient(make_run, T)))
    assert "| 100.0% over 4 of 8 |" in md


def test_failed_graders_are_counted_per_trial(make_run, T) -> None:
    run = make_run([T("fm", n=5, solved=0, failed_grader="frontmatterEquals", failed_verdicts=2)])
    md = render_run_markdown(load_run(run))
    assert "(10/5)" not in md
    assert "frontmatterEquals failed in 5/5 trials" in md
    [row] = _summary(run).tasks
    assert row.failed_graders == {"frontmatterEquals": 5}
    assert "frontmatterEquals failed in 5/5 trials" in _terminal(_summary(run))


def test_power_line_quotes_the_compared_tasks_k(make_run, T, tmp_path) -> None:
    out = tmp_path / "bl"
    bless(make_run([T("g5", n=5, k=5)]), out)
    # a new task with k = 3 is not compared: the power line is about g5 (k = 5)
    run = make_run([T("g5", n=5, k=5), T("new", n=3, k=3)])
    [match] = [compare(run, path) for path in out.iterdir()]
    text = "\n".join(comparison_lines(match))
    assert "this run has k = 3" not in text
    assert "each compared task has k = 5" in text


def test_tracked_figures_are_shown_per_task(make_run, T) -> None:
    tracked = ["pass^k", "latency_p95", "cost", "tokens", "tool_calls"]
    run = make_run([T("t1", tracked_metrics=tracked, latency_s=2.5), T("t2")])
    [row1, row2] = _summary(run).tasks
    assert row1.tracked is not None and set(row1.tracked) == set(tracked)
    assert row2.tracked is None
    text = _terminal(_summary(run))
    assert "latency_p95 2.50 s" in text and "tokens 120" in text
    md = render_run_markdown(load_run(run))
    assert "### Tracked metrics" in md
    assert "| `t1` |" in md and "latency_p95 2.50 s" in md and "cost $0.0010" in md
