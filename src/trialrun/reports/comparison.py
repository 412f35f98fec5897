"""Models side by side for a multi-model run: solved/n per task per model, ⚠ flaky.

Both renderings take the summary.json dict (its `tasks` rows and `aggregate` by model).
"""

from __future__ import annotations

from typing import Any

FLAKY = "⚠"


def _models(summary: dict[str, Any]) -> list[str]:
    models = [m for m in summary.get("models") or [] if isinstance(m, str)]
    for row in summary.get("tasks") or []:
        if row.get("model") not in models:
            models.append(str(row.get("model")))
    return models


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "—"
    n = int(row.get("n") or 0) - int(row.get("undetermined") or 0)
    text = f"{int(row.get('solved') or 0)}/{n}"
    if row.get("flaky"):
        text += f" {FLAKY}"
    if row.get("solve_k") is None:
        text += " (insufficient)"
    return text


def _pct(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{value * 100:.1f}%"


def _turns(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{value:.1f}"


def _cost(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) else f"${value:.4f}"


def model_grid(summary: dict[str, Any]) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """(models, task rows, summary rows) as plain strings, shared by both renderings."""
    models = _models(summary)
    by_key = {(r.get("task_id"), r.get("model")): r for r in summary.get("tasks") or []}
    task_ids = list(dict.fromkeys(str(r.get("task_id")) for r in summary.get("tasks") or []))
    rows = [[tid, *(_cell(by_key.get((tid, m))) for m in models)] for tid in task_ids]
    agg = summary.get("aggregate") or {}

    def figure(key: str, fmt: Any) -> list[str]:
        return [fmt((agg.get(m) or {}).get(key)) for m in models]

    footer = [
        ["solve^k", *figure("solve_k_rate", _pct)],
        ["pass^k", *figure("pass_k_rate", _pct)],
        ["mean turns", *figure("mean_turns", _turns)],
        ["total cost", *figure("cost_usd", _cost)],
    ]
    return models, rows, footer


def render_models_markdown(summary: dict[str, Any]) -> str:
    """A Markdown table: one row per task, one column per model; summary rows in bold."""
    models, rows, footer = model_grid(summary)

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        "| task | " + " | ".join(f"`{esc(m)}`" for m in models) + " |",
        "| --- |" + " --- |" * len(models),
    ]
    lines += ["| " + " | ".join([f"`{esc(r[0])}`", *r[1:]]) + " |" for r in rows]
    lines += [
        "| " + " | ".join([f"**{r[0]}**", *(f"**{c}**" for c in r[1:])]) + " |" for r in footer
    ]
    lines.append(f"\nsolved/n counted trials per task; {FLAKY} flaky (0 < solved < n).")
    return "\n".join(lines) + "\n"


def render_models_terminal(summary: dict[str, Any], console: Any = None) -> None:
    """The same table with rich (task ids never truncated)."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    models, rows, footer = model_grid(summary)
    table = Table(title="solved/n per task (⚠ flaky)", show_footer=False)
    table.add_column("task", no_wrap=True, overflow="fold")
    for m in models:
        table.add_column(m, justify="right")
    for r in rows:
        table.add_row(*r)
    table.add_section()
    for r in footer:
        table.add_row(*r, style="bold")
    console.print(table)
