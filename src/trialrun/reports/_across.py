"""Pages about several runs: two runs compared, and a heat map of many runs."""

from __future__ import annotations

from typing import Any

from trialrun.reports._svg import dumbbell, heatmap
from trialrun.rundir import Summary
from trialrun.tracking import Comparison


def comparison_svg(comparison: Comparison, title: str | None = None) -> str:
    """Per task solve rate before → after, regressions and within-noise drops apart."""
    order = {"regression": 0, "within noise": 1, "improved": 2, "unchanged": 3}
    tasks = sorted(comparison.tasks, key=lambda t: (order.get(t.label, 4), t.task_id))
    rows = [(t.task_id, t.before.solve_rate, t.after.solve_rate, t.label) for t in tasks]
    return dumbbell(title or f"solve rate before → after · {comparison.model}", rows)


def comparison_page(comparisons: list[Comparison], a: str, b: str) -> dict[str, Any]:
    """Two runs side by side: per model the aggregate change and the per-task plot."""
    return {
        "a": a, "b": b,
        "models": [{
            "model": c.model,
            "before": c.before, "after": c.after,
            "solve_k_delta_pp": c.pp("solve_k_rate"), "pass_k_delta_pp": c.pp("pass_k_rate"),
            "latency_p95_before_s": c.latency_p95_before_s,
            "latency_p95_after_s": c.latency_p95_after_s,
            "regressions": [t.task_id for t in c.regressions],
            "within_noise": [t.task_id for t in c.within_noise],
            "missing_tasks": c.missing_tasks, "new_tasks": c.new_tasks,
            "tasks": [{
                "task_id": t.task_id, "label": t.label, "p": t.p_value,
                "before": [t.before.solved, t.before.solve_n],
                "after": [t.after.solved, t.after.solve_n],
            } for t in c.tasks],
            "svg": comparison_svg(c),
        } for c in comparisons],
    }


HISTORY_ROWS = 150


def history_page(runs: list[tuple[str, Summary]], *, max_rows: int = HISTORY_ROWS) -> dict:
    """Task × model over the given runs (oldest first) as a heat map of solve rates.

    A cell is the run's solved / (n − undetermined) for that task and model; rows are
    grouped by model (a heading each when there are several), those not always solved
    first, then by task id; at most `max_rows` rows.
    """
    cells: dict[tuple[str, str], dict[str, tuple[float | None, str]]] = {}
    for run_id, summary in runs:
        for row in summary.tasks:
            key = (str(row.get("task_id")), str(row.get("model")))
            n = int(row.get("n") or 0) - int(row.get("undetermined") or 0)
            solved = int(row.get("solved") or 0)
            value = solved / n if n > 0 else None
            tip = f"{key[0]} · {key[1]} · {run_id}: solved {solved}/{n}"
            cells.setdefault(key, {})[run_id] = (value, tip)
    ids = [run_id for run_id, _ in runs]
    models = {model for _, model in cells}

    def imperfect(key: tuple[str, str]) -> bool:
        return any(v is not None and v < 1.0 for v, _ in cells[key].values())

    keys = sorted(cells, key=lambda k: (k[1], not imperfect(k), k[0]))[:max_rows]
    rows: list[tuple[str, list[tuple[float | None, str]]]] = []
    heading = None
    for task, model in keys:
        if len(models) > 1 and model != heading:
            rows.append((model, []))  # a heading per model
            heading = model
        rows.append((task, [cells[(task, model)].get(r, (None, f"{task} · {model} · {r}: "
                                                          "not run")) for r in ids]))
    return {
        "runs": ids,
        "rows": len(cells),
        "shown": len(keys),
        "svg": heatmap(f"solve rate per task over the last {len(ids)} run(s)", ids, rows),
    }
