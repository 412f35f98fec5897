"""Models side by side for a multi-model run: solved/n per task per model, ⚠ flaky."""

from __future__ import annotations

from typing import Any

from trialrun.metrics import coverage
from trialrun.reports._format import DASH, fixed, md_cell, money, pct
from trialrun.rundir import Summary, SummaryRow

FLAKY = "⚠"


def _models(summary: Summary) -> list[str]:
    models = list(summary.models)
    for row in summary.tasks:
        if row.model not in models:
            models.append(row.model)
    return models


def _cell(row: SummaryRow | None) -> str:
    if row is None:
        return DASH
    text = f"{row.solved}/{row.n - row.undetermined}"
    if row.flaky:
        text += f" {FLAKY}"
    if row.solve_k is None:
        text += " (insufficient)"
    return text


def model_grid(summary: Summary) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """(models, task rows, figure rows) as plain strings."""
    models = _models(summary)
    by_key = {r.key: r for r in summary.tasks}
    task_ids = list(dict.fromkeys(r.task_id for r in summary.tasks))
    rows = [[tid, *(_cell(by_key.get((tid, m))) for m in models)] for tid in task_ids]

    def figure(key: str) -> list[Any]:
        return [(summary.aggregate.get(m) or {}).get(key) for m in models]

    def rate(key: str, row_key: str) -> list[str]:
        """The rate per model with the tasks it is over: "100.0% (4/8 tasks)"."""
        out = []
        for m, value in zip(models, figure(key), strict=True):
            with_value, tasks = coverage(summary.rows_for(m), row_key)
            out.append(f"{pct(value)} ({with_value}/{tasks} tasks)")
        return out

    footer = [
        ["solve^k", *rate("solve_k_rate", "solve_k")],
        ["pass^k (completed)", *rate("pass_k_rate", "pass_k")],
        ["mean turns", *(fixed(v, 1) for v in figure("mean_turns"))],
        ["total cost", *map(money, figure("cost_usd"))],
    ]
    return models, rows, footer


def render_models_markdown(summary: Summary) -> str:
    """A Markdown table: one row per task, one column per model; figure rows in bold."""
    models, rows, footer = model_grid(summary)
    lines = [
        "| task | " + " | ".join(f"`{md_cell(m)}`" for m in models) + " |",
        "| --- |" + " --- |" * len(models),
    ]
    lines += ["| " + " | ".join([f"`{md_cell(r[0])}`", *r[1:]]) + " |" for r in rows]
    lines += [
        "| " + " | ".join([f"**{r[0]}**", *(f"**{c}**" for c in r[1:])]) + " |" for r in footer
    ]
    lines.append(f"\nsolved/n counted trials per task; {FLAKY} flaky (0 < solved < n).")
    return "\n".join(lines) + "\n"
