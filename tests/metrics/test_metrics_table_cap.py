"""The streamed summary and the capped terminal table (worst tasks first, --all)."""

from __future__ import annotations

import math

from rich.console import Console

from trialrun.metrics import Summarizer, summarize
from trialrun.reports import ROW_CAP, render_summary
from trialrun.rundir import ResultLine


def lines(tasks: int, k: int, model: str = "m:x") -> list[ResultLine]:
    out = []
    for t in range(tasks):
        for trial in range(k):
            solved = trial < (t % (k + 1))  # task t solves t mod (k+1) of its k trials
            out.append(ResultLine(f"task-{t:03d}", model, trial, solved, solved,
                                  latency_s=0.5 + trial, cost_usd=0.001 * (t + 1)))
    return out


def text(summary, limit=ROW_CAP) -> str:
    console = Console(record=True, width=220, force_terminal=False)
    render_summary(summary, console, limit=limit)
    return console.export_text()


def test_summarizer_fed_line_by_line_holds_no_line_and_counts_duplicates_once() -> None:
    every = lines(7, 4)
    s = Summarizer(k=4)
    for line in [*every, every[0]]:
        s.add(line)
    streamed = s.summary()
    assert streamed.finished_trials == 28
    assert "1 duplicate results line(s) ignored" in streamed.warnings[0]
    assert streamed.tasks == summarize(every, k=4).tasks
    row = next(r for r in streamed.tasks if r.task_id == "task-002")
    assert (row.n, row.solved, row.flaky) == (4, 2, True)
    agg = streamed.aggregate["m:x"]
    assert agg["latency_p50_s"] == 2.0 and agg["trials"] == 28
    # exactly rounded: math.fsum over the lines' costs (not a running sum's last ulp)
    assert agg["cost_usd"] == math.fsum(0.001 * (t + 1) for t in range(7) for _ in range(4))


def test_a_long_table_shows_the_worst_tasks_and_says_how_many_are_left_out() -> None:
    summary = summarize(lines(ROW_CAP + 10, 3), k=3)
    shown = text(summary)
    assert f"… 10 more task(s) not shown (the {ROW_CAP} worst are); --all shows every task" in shown
    # task t solves t mod 4 of 3: every task with 0/3 is among the worst shown
    assert "task-000" in shown and "task-004" in shown
    solved_all = [f"task-{t:03d}" for t in range(ROW_CAP + 10) if t % 4 == 3]
    assert sum(tid in shown for tid in solved_all) < len(solved_all)
    assert shown.index("task-000") < shown.index("task-001")  # 0/3 before 1/3
    full = text(summary, limit=None)
    assert "not shown" not in full and all(tid in full for tid in solved_all)
    # the headline is over every task, shown or not
    assert f"of {ROW_CAP + 10} tasks" in shown or f"over {ROW_CAP + 10} tasks" in shown


def test_a_short_table_keeps_its_order() -> None:
    summary = summarize(lines(5, 3), k=3)
    shown = text(summary)
    assert "not shown" not in shown
    assert [shown.index(f"task-{t:03d}") for t in range(5)] == sorted(
        shown.index(f"task-{t:03d}") for t in range(5)
    )


def test_side_by_side_is_capped_too() -> None:
    both = lines(ROW_CAP + 3, 3) + lines(ROW_CAP + 3, 3, model="m:y")
    summary = summarize(both, k=3)
    shown = text(summary)
    assert "… 3 more task(s) not shown" in shown
    assert "not shown" not in text(summary, limit=None)
