"""Terminal tables for a run summary: one model, or several side by side.

Per task `solved/n` (n = trials counted for solve), ⚠ when flaky, `?N` for undetermined
trials, `!N` for infra errors; failed graders are named, with the trials they failed in,
for tasks that are not solved; a task's tracked figures (its `tracked_metrics`) beyond the
estimator columns are shown beside it. Each headline rate says over how many tasks it
was taken. Rates are fractions in files and percentages here.

solve^k (the right outcome every time: τ-bench's pass^k) leads the columns and the
headline; trialrun's pass^k only says the trials finished, so it is labelled
`pass^k (completed)` and `LEGEND`, printed under every table, defines both.

A table is capped at `ROW_CAP` tasks (drawing thousands of rows costs more than the
figures): past it the worst tasks are shown first and a line says how many are left out
(`--all` shows every row). The headline figures are always over every task.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from trialrun.metrics import coverage
from trialrun.reports._format import (
    fixed,
    money,
    over_tasks,
    pct,
    seconds_short,
    tracked_text,
    trajectory_text,
)
from trialrun.rundir import Summary, SummaryRow

# estimators the table has a column for: not repeated among a row's tracked figures
COLUMNS = ("pass^k", "solve^k", "pass@k")
ROW_CAP = 50
PASS_K = "pass^k (completed)"
MEAN_PASS = "mean pass (completed)"
LEGEND = (
    f"{PASS_K}: every trial finished without a harness error or timeout; "
    "solve^k: every trial got the right outcome"
)
# the columns besides task and notes, which need about this much room before the notes
# get a column of their own
INLINE_NOTES_WIDTH = 70 + len(PASS_K) - len("pass^k")


def _badness(row: SummaryRow) -> tuple[float, int, str]:
    """Sort key, worst first: lowest solved fraction, then infra errors, then the id."""
    solve_n = row.n - row.undetermined
    fraction = row.solved / solve_n if solve_n else -1.0
    return (fraction, -row.infra_errors, row.task_id)


def worst_first(
    task_ids: list[str], score: dict[str, tuple[Any, ...]], limit: int | None
) -> list[str]:
    """All ids in their order when they fit in `limit`, else the `limit` worst."""
    if limit is None or len(task_ids) <= limit:
        return task_ids
    return sorted(task_ids, key=lambda tid: score[tid])[:limit]


def _left_out(console: Console, shown: int, total: int) -> None:
    if shown < total:
        console.print(
            f"… {total - shown} more task(s) not shown (the {shown} worst are); "
            "--all shows every task",
            highlight=False,
        )


def cell(row: SummaryRow) -> Text:
    """`solved/n` with ⚠ (flaky), ?N (undetermined), !N (infra errors)."""
    solve_n = row.n - row.undetermined
    text = Text(f"{row.solved}/{solve_n}")
    if row.n == 0 and not row.infra_errors:
        return Text("not run", style="dim")
    if row.flaky:
        text.append(" ⚠", style="yellow")
    elif solve_n and row.solved == solve_n:
        text.stylize("green")
    elif solve_n:
        text.stylize("red")
    if row.undetermined:
        text.append(f" ?{row.undetermined}", style="magenta")
    if row.infra_errors:
        text.append(f" !{row.infra_errors}", style="blue")
    return text


def notes(row: SummaryRow) -> str:
    parts: list[str] = []
    failed = row.failed_graders
    solve_n = row.n - row.undetermined
    if failed and row.solved < solve_n:
        parts.append(
            "failed: " + ", ".join(f"{g} failed in {c}/{solve_n} trials" for g, c in failed.items())
        )
    errors = row.errors
    if errors:
        parts.append("errors: " + ", ".join(f"{k}×{v}" for k, v in errors.items()))
    if row.safety_violations:
        parts.append(f"safety violations: {row.safety_violations}")
    trajectory = trajectory_text(row.trajectory)
    if trajectory:
        parts.append(trajectory)
    if row.settled_after is not None:
        # trials already in flight when it settled still finish: say what was not run
        not_run = row.k - row.n - row.infra_errors
        left = f"{not_run} not run" if not_run > 0 else "every trial had started"
        parts.append(
            f"settled after {row.settled_after} of {row.k} ({row.metric} "
            f"{row.settled}; {left})"
        )
    elif row.pass_k is None or row.solve_k is None:
        parts.append(f"insufficient (<{row.k} counted)")
    return "; ".join(parts)


def tier_lines(agg: dict[str, Any]) -> list[str]:
    out = []
    for tier, t in sorted((agg.get("by_tier") or {}).items()):
        out.append(
            f"{tier}: {t['solved_k']}/{t['tasks']} tasks meet solve^k, "
            f"{t['passed_k']}/{t['tasks']} meet {PASS_K}"
        )
    return out


def summary_lines(agg: dict[str, Any], rows: list[SummaryRow]) -> list[str]:
    """The headline under a model's table, solve^k first; each rate says over how many
    tasks it is."""
    settled = sum(1 for r in rows if r.settled_after is not None and r.solve_k is None)
    settled_pass = sum(1 for r in rows if r.settled_after is not None and r.pass_k is None)
    solve_over = over_tasks(*coverage(rows, "solve_k"), settled)
    pass_over = over_tasks(*coverage(rows, "pass_k"), settled_pass)
    lines = [
        f"solve^k {pct(agg['solve_k_rate'])} {solve_over}   "
        f"{PASS_K} {pct(agg['pass_k_rate'])} {pass_over}",
        f"mean solve {pct(agg['mean_solve_rate'])} (trials with a verdict)   "
        f"{MEAN_PASS} {pct(agg['mean_pass_rate'])} (every finished trial)",
        f"flaky tasks {agg['flaky_task_count']}   insufficient {agg['insufficient']}   "
        + (f"settled early {agg['settled']}   " if agg.get("settled") else "")
        + f"infra errors {agg.get('infra_errors', 0)}   undetermined {agg.get('undetermined', 0)}",
    ]
    lat = agg.get("latency_p50_s"), agg.get("latency_p95_s")
    tokens = agg.get("tokens") or {}
    cost = agg.get("cost_usd")
    extra = []
    if lat[0] is not None:
        extra.append(f"latency p50 {seconds_short(lat[0])} p95 {seconds_short(lat[1])}")
    if agg.get("mean_turns") is not None:
        extra.append(f"mean turns {fixed(agg['mean_turns'], 1)}")
    extra.append(f"tokens {tokens.get('prompt', 0)}+{tokens.get('completion', 0)}")
    if cost is not None:
        extra.append(f"cost {money(cost)}")
    lines.append("   ".join(extra))
    return lines + tier_lines(agg)


def _longest(names: Iterable[str]) -> int:
    return max((len(n) for n in names), default=4)


def render_single(
    summary: Summary, console: Console, model: str, limit: int | None = ROW_CAP
) -> None:
    every = [r for r in summary.tasks if r.model == model]
    by_id = {r.task_id: r for r in every}
    score = {tid: _badness(r) for tid, r in by_id.items()}
    rows = [by_id[tid] for tid in worst_first(list(by_id), score, limit)]
    longest = _longest(r.task_id for r in rows)
    # On a narrow terminal the notes go under the table rather than into a squeezed column.
    inline_notes = console.width >= longest + INLINE_NOTES_WIDTH
    # model specs are paths and may hold "[...]": never rich markup
    table = Table(title=Text(model), title_justify="left", show_lines=False)
    # Task ids are never cut or wrapped: users copy them into --task.
    table.add_column("task", no_wrap=True, min_width=longest)
    table.add_column("tier")
    table.add_column("solved/n", justify="right")
    table.add_column("solve^k", justify="right")
    table.add_column("pass@k", justify="right")
    table.add_column(PASS_K, justify="right")
    tracked = {r.task_id: tracked_text(r.tracked, skip=COLUMNS) for r in rows}
    with_tracked = any(tracked.values())
    if inline_notes and with_tracked:
        table.add_column("tracked", overflow="fold")
    if inline_notes:
        table.add_column("notes", overflow="fold")
    below: list[str] = []
    for r in rows:
        cells: list[str | Text] = [
            r.task_id,
            r.tier or "",
            cell(r),
            fixed(r.solve_k, 3),
            fixed(r.pass_at_k, 3),
            fixed(r.pass_k, 3),
        ]
        note = notes(r)
        if inline_notes:
            if with_tracked:
                cells.append(Text(tracked[r.task_id]))
            cells.append(Text(note))
        else:
            shown = tracked[r.task_id]
            note = "; ".join(x for x in (shown and f"tracked {shown}", note) if x)
            if note:
                below.append(f"  {r.task_id}: {note}")
        table.add_row(*cells)
    console.print(table)
    _left_out(console, len(rows), len(every))
    for line in below:
        console.print(Text(line), soft_wrap=True)
    console.print(LEGEND, highlight=False)
    for line in summary_lines(summary.aggregate[model], every):
        console.print(line, highlight=False)


def render_side_by_side(summary: Summary, console: Console, limit: int | None = ROW_CAP) -> None:
    models = summary.models
    table = Table(title="solved/n per task and model", title_justify="left")
    table.add_column("task", no_wrap=True, min_width=_longest(r.task_id for r in summary.tasks))
    table.add_column("tier")
    for m in models:
        table.add_column(Text(m), justify="right", overflow="fold")
    by_key = {(r.task_id, r.model): r for r in summary.tasks}
    every = list(dict.fromkeys(r.task_id for r in summary.tasks))
    score: dict[str, tuple[Any, ...]] = {}
    for r in summary.tasks:  # a task's worst model decides its place
        mine = _badness(r)
        score[r.task_id] = min(score.get(r.task_id, mine), mine)
    task_ids = worst_first(every, score, limit)
    for tid in task_ids:
        first = next(by_key[(tid, m)] for m in models if (tid, m) in by_key)
        table.add_row(
            tid,
            first.tier or "",
            *[cell(by_key[(tid, m)]) if (tid, m) in by_key else Text("—") for m in models],
        )
    table.add_section()
    aggs = [summary.aggregate.get(m, {}) for m in models]
    for label, key, figure in (
        ("solve^k", "solve_k_rate", "solve_k"),
        (PASS_K, "pass_k_rate", "pass_k"),
    ):
        cells = []
        for m, a in zip(models, aggs, strict=True):
            with_value, tasks = coverage(summary.rows_for(m), figure)
            cells.append(f"{pct(a.get(key))} ({with_value}/{tasks} tasks)")
        table.add_row(Text(label, style="bold"), "", *cells)
    for label, key in (("mean solve", "mean_solve_rate"), (MEAN_PASS, "mean_pass_rate")):
        table.add_row(Text(label, style="bold"), "", *[pct(a.get(key)) for a in aggs])
    table.add_row(
        Text("flaky", style="bold"), "", *[str(a.get("flaky_task_count", 0)) for a in aggs]
    )
    tiers = sorted({t for a in aggs for t in (a.get("by_tier") or {})})
    for tier in tiers:
        cells = []
        for a in aggs:
            t = (a.get("by_tier") or {}).get(tier)
            cells.append(f"{t['solved_k']}/{t['tasks']}" if t else "—")
        table.add_row(Text(f"{tier} solve^k", style="bold"), "", *cells)
    console.print(table)
    _left_out(console, len(task_ids), len(every))
    console.print(LEGEND, highlight=False)
    shown = set(task_ids)
    for r in summary.tasks:
        if r.task_id not in shown:
            continue
        text = tracked_text(r.tracked, skip=COLUMNS)
        if text:
            console.print(Text(f"  {r.task_id} · {r.model}: tracked {text}"), soft_wrap=True)


def render_summary(summary: Summary, console: Console, *, limit: int | None = ROW_CAP) -> None:
    """The end table: one model in detail, or several side by side; at most `limit` task
    rows (None: every row), the worst first when some are left out."""
    if len(summary.models) == 1:
        render_single(summary, console, summary.models[0], limit)
    else:
        render_side_by_side(summary, console, limit)
