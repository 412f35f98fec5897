"""Pages about several runs: two runs compared, and a heat map of many runs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from trialrun.reports._svg import Cell, dumbbell, heatmap
from trialrun.reports._verdict import verdict_page
from trialrun.rundir import Summary
from trialrun.tracking import Comparison, OneSided


def comparison_svg(comparison: Comparison, title: str | None = None) -> str:
    """Per task solve rate before → after, regressions and within-noise drops apart."""
    order = {"regression": 0, "within noise": 1, "improved": 2, "unchanged": 3}
    tasks = sorted(comparison.tasks, key=lambda t: (order.get(t.label, 4), t.task_id))
    rows = [(t.task_id, t.before.solve_rate, t.after.solve_rate, t.verdict) for t in tasks]
    return dumbbell(title or f"solve rate before → after · {comparison.model}", rows)


def comparison_page(
    comparisons: list[Comparison], a: str, b: str, one_sided: OneSided | None = None
) -> dict[str, Any]:
    """Two runs side by side: per model the verdict (per-task labels, the suite test, the
    mean solve rate), the aggregate change and the per-task plot; then the models in one
    run only."""
    sides = one_sided or OneSided()
    return {
        "a": a, "b": b,
        "only_in_a": sides.only_after, "only_in_b": sides.only_before,
        "models": [{
            "model": c.model,
            "before": c.before, "after": c.after,
            "solve_k_delta_pp": c.pp("solve_k_rate"), "pass_k_delta_pp": c.pp("pass_k_rate"),
            "latency_p95_before_s": c.latency_p95_before_s,
            "latency_p95_after_s": c.latency_p95_after_s,
            "regressions": [t.task_id for t in c.regressions],
            "within_noise": [t.task_id for t in c.within_noise],
            "missing_tasks": c.missing_tasks, "new_tasks": c.new_tasks,
            **verdict_page(c),
            "svg": comparison_svg(c),
        } for c in comparisons],
    }


HISTORY_ROWS = 150
HISTORY_RUNS = 10  # the heat map's last N runs (per task × model from a history store)


@dataclass(frozen=True, slots=True)
class HeatCell:
    """One task × model in one run, as the heat map needs it: plain data, from the run
    folders' summary.json or from a history store (the CLI converts its rows)."""

    run_id: str
    task_id: str
    model: str
    solved: int
    n: int  # trials with a result (infra errors left out)
    undetermined: int = 0
    started_at: str = ""  # orders the runs; equal ones by run id


def cells_from_summaries(runs: Sequence[tuple[str, Summary]]) -> list[HeatCell]:
    """The heat map's cells from finished run folders (run id, its summary.json); a task
    × model without a trial in a run has no cell there."""
    return [
        HeatCell(
            run_id=run_id,
            task_id=row.task_id,
            model=row.model,
            solved=row.solved,
            n=row.n,
            undetermined=row.undetermined,
            started_at=f"{i:08d}",  # the order given
        )
        for i, (run_id, summary) in enumerate(runs)
        for row in summary.tasks
        if row.n or row.infra_errors or row.undetermined  # a row without a trial: no cell
    ]


_RUN_ID = re.compile(r"^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})\d{2}Z(?:-(\w+))?")
_ISO = re.compile(r"^\d{4}-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})")


def run_label(run_id: str, started_at: str = "") -> str:
    """A column's label: when the run started, "11-23 18:28" (from its start time, else
    its id's timestamp), with the id's suffix ("11-23 18:28 a5ac"); else the id itself."""
    found = _RUN_ID.match(run_id)
    suffix = f" {found.group(6)}" if found and found.group(6) else ""
    if iso := _ISO.match(started_at):
        month, day, hour, minute = iso.groups()
        return f"{month}-{day} {hour}:{minute}{suffix}"
    if found:
        _, month, day, hour, minute, _ = found.groups()
        return f"{month}-{day} {hour}:{minute}{suffix}"
    return run_id if len(run_id) <= 18 else run_id[:17] + "…"


def history_page(
    cells: Iterable[HeatCell],
    *,
    source: str = "run folders",
    max_rows: int = HISTORY_ROWS,
    max_runs: int = HISTORY_RUNS,
) -> dict[str, Any]:
    """Task × model over the last `max_runs` runs (a column each, oldest first) as a heat
    map of solve rates.

    A cell is the run's solved / (n − undetermined) for that task and model, drawn only
    where the task × model ran in that run (a task not in a run leaves its cell blank).
    The store gives each task × model its own last runs; only the last `max_runs` runs of
    them all are columns, so a blank cell never hides a run that ran. Rows are grouped by
    model (a heading each when there are several), those not always solved first, then
    by task id; at most `max_rows` rows. `source` says where the cells came from.
    """
    cells = list(cells)
    order: dict[str, str] = {}
    for c in cells:
        order[c.run_id] = min(order.get(c.run_id, c.started_at), c.started_at)
    ids = sorted(order, key=lambda r: (order[r], r))[-max_runs:]
    shown_runs = set(ids)
    table: dict[tuple[str, str], dict[str, tuple[float | None, str]]] = {}
    for c in cells:
        if c.run_id not in shown_runs:
            continue
        n = c.n - c.undetermined
        value = c.solved / n if n > 0 else None
        tip = f"{c.task_id} · {c.model} · {c.run_id}: solved {c.solved}/{n}"
        if value is None:
            tip += " (no verdict: every trial undetermined)"
        table.setdefault((c.task_id, c.model), {})[c.run_id] = (value, tip)
    models = {model for _, model in table}

    def imperfect(key: tuple[str, str]) -> bool:
        return any(v is not None and v < 1.0 for v, _ in table[key].values())

    keys = sorted(table, key=lambda k: (k[1], not imperfect(k), k[0]))[:max_rows]
    rows: list[tuple[str, list[Cell | None]]] = []
    heading = None
    for task, model in keys:
        if len(models) > 1 and model != heading:
            rows.append((model, []))  # a heading per model
            heading = model
        rows.append((task, [table[(task, model)].get(r) for r in ids]))
    starts = {c.run_id: c.started_at for c in cells}
    labels = [run_label(r, starts.get(r, "")) for r in ids]
    return {
        "runs": ids,
        "labels": labels,
        "rows": len(table),
        "shown": len(keys),
        "source": source,
        "svg": heatmap(f"solve rate per task over the last {len(ids)} run(s)",
                       list(zip(labels, ids, strict=True)), rows),
    }
