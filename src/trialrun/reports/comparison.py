"""Comparisons with baselines (or other runs) as text, terminal, Markdown and JSON."""

from __future__ import annotations

import json
from typing import Any

from trialrun.reports._format import (
    change_pct,
    code_names,
    delta_ms,
    money,
    names,
    pct,
    pp,
    seconds,
)
from trialrun.reports._verdict import mean_solve_text, rate_change, suite_text
from trialrun.tracking import BaselineMatch, Comparison, OneSided, TaskDelta

# the mean solve rate leads: a solve^k of 0 % on both sides can hide a drop
RATES = (
    ("mean_solve_rate", "mean solve rate"),
    ("solve_k_rate", "solve^k"),
    ("pass_k_rate", "pass^k (completed)"),
)



def latency_bounds(c: Comparison) -> str:
    """", 95% bounds -3…+175 ms": the bounds the merge gate's latency rule judges by."""
    found = c.spend.latency_bounds_ms() if c.spend is not None else None
    return "" if found is None else f", {found.label} {found.low:+.0f}…{found.high:+.0f} ms"


def cost_bounds(c: Comparison) -> str:
    """", 95% bounds -4.0…+6.1%": the bounds the merge gate's cost rule judges by."""
    found = c.spend.cost_bounds_pct() if c.spend is not None else None
    return "" if found is None else f", {found.label} {found.low:+.1f}…{found.high:+.1f}%"

def _power_line(c: Comparison) -> str:
    need = (
        f"{c.trials_needed} trials per task"
        if c.trials_needed
        else "more trials than is practical (or the rate is below 20%)"
    )
    return (
        f"  power: detecting a 20-point drop at the observed solve rate "
        f"{pct(c.observed_rate, 0)} with 80% power (one-sided Fisher, α = {c.alpha:g}) "
        f"needs {need}{_task_k(c)}"
    )


def _task_k(c: Comparison) -> str:
    """The compared tasks' own k (a task's k, not the run's smallest)."""
    if len(c.task_k) == 1:
        return f"; each compared task has k = {c.task_k[0]}"
    if c.task_k:
        return f"; the compared tasks have k = {c.task_k[0]} to {c.task_k[-1]}"
    return f"; this run has k = {c.k}" if c.k else ""


def _suite_line(c: Comparison) -> list[str]:
    """One line: the suite-level test (the first that flags, else the first that dropped,
    else the solve test), as every surface quotes it."""
    return [f"  {suite_text(c.suite_shown)}"] if c.tasks else []


def task_tag(t: TaskDelta) -> str:
    """A dropped task's tag: "REGRESSION  ", "within noise", "within noise · drift"."""
    if t.label == "regression":
        return "REGRESSION · drift" if t.drift else "REGRESSION  "
    return t.verdict


def one_sided_lines(sides: OneSided, run: str, other: str) -> list[str]:
    """The models compared with nothing (in one run only), one line each side."""
    out = []
    if sides.only_after:
        out.append(f"only in {run} (not compared): {names(sides.only_after)}")
    if sides.only_before:
        out.append(f"only in {other} (not compared): {names(sides.only_before)}")
    return out


def comparison_lines(c: Comparison, *, only_drops: bool = True) -> list[str]:
    """Plain-text lines of one comparison (regressions-only unless only_drops=False)."""
    lines = [
        f"{c.model} vs {c.against}" + (f" (run {c.against_run_id})" if c.against_run_id else ""),
        "  "
        + "; ".join(rate_change(c, key, label) for key, label in RATES)
        + f"  [{len(c.tasks)} common task(s)]",
    ]
    if c.latency_delta_ms is not None:
        lines.append(
            f"  P95 latency {seconds(c.latency_p95_before_s)} → {seconds(c.latency_p95_after_s)} "
            f"({delta_ms(c.latency_delta_ms)}{latency_bounds(c)})"
        )
    if c.cost_per_trial_before is not None and c.cost_per_trial_after is not None:
        delta = change_pct(c.cost_delta_pct)
        lines.append(
            f"  cost/trial {money(c.cost_per_trial_before)} → {money(c.cost_per_trial_after)}"
            + (f" ({delta}{cost_bounds(c)})" if delta else "")
        )
    for t in c.tasks:
        if t.dropped:
            lines.append(f"  {task_tag(t)} {t.task_id}: {t.describe()}")
        elif not only_drops and t.label == "improved":
            lines.append(
                f"  improved     {t.task_id}: solved {t.before.solved}/{t.before.solve_n} → "
                f"{t.after.solved}/{t.after.solve_n}"
            )
    if not any(t.dropped for t in c.tasks):
        lines.append("  no task dropped")
    lines.extend(_suite_line(c))
    if c.missing_tasks:
        lines.append(f"  missing (in baseline, not run): {names(c.missing_tasks)}")
    if c.new_tasks:
        lines.append(f"  new (not in baseline): {names(c.new_tasks)}")
    if c.observed_rate is not None:
        lines.append(_power_line(c))
    lines.extend(f"  note: {note}" for note in c.notes)
    return lines


def render_comparisons(
    matches: list[BaselineMatch] | list[Comparison] | Comparison,
    console: Any = None,
    *,
    only_drops: bool = True,
    one_sided: list[str] | None = None,
) -> None:
    """Print comparisons, regressions in bold red (what `trialrun run` shows after a run);
    `one_sided` lines (models in one run only) come last."""
    # the console (~25 ms) only when a table is printed
    from rich.console import Console
    from rich.markup import escape

    console = console or Console(highlight=False)
    items = matches if isinstance(matches, list) else [matches]
    for item in items:
        if isinstance(item, BaselineMatch):
            if item.comparison is None:
                console.print(
                    f"{escape(item.model)}: no baseline at {escape(str(item.baseline_path))} "
                    "(bless a run with `trialrun bless RUN_DIR` to create it)",
                    soft_wrap=True,
                )
                continue
            comparison = item.comparison
        else:
            comparison = item
        for line in comparison_lines(comparison, only_drops=only_drops):
            style = "bold red" if "REGRESSION" in line else None
            console.print(escape(line), style=style, soft_wrap=True)
    for line in one_sided or []:
        console.print(escape(line), style="yellow", soft_wrap=True)


def comparisons_markdown(comparisons: list[Comparison]) -> str:
    """A Markdown section: aggregate deltas and the dropped tasks, labelled."""
    out: list[str] = []
    for c in comparisons:
        out.append(f"#### {c.model} vs `{c.against}`\n")
        out.append("| | before | after | Δ |\n| --- | --- | --- | --- |")
        for key, label in RATES:
            out.append(
                f"| {label} | {pct(c.before.get(key))} | {pct(c.after.get(key))} | "
                f"{pp(c.pp(key))} |"
            )
        if c.latency_delta_ms is not None:
            out.append(
                f"| P95 latency | {seconds(c.latency_p95_before_s)} | "
                f"{seconds(c.latency_p95_after_s)} | {delta_ms(c.latency_delta_ms)}"
                f"{latency_bounds(c)} |"
            )
        if c.cost_per_trial_before is not None and c.cost_per_trial_after is not None:
            out.append(
                f"| cost/trial | {money(c.cost_per_trial_before)} | "
                f"{money(c.cost_per_trial_after)} | {change_pct(c.cost_delta_pct)}"
                f"{cost_bounds(c)} |"
            )
        out.append("")
        dropped = [t for t in c.tasks if t.dropped]
        if dropped:
            out.append("| task | change | verdict |\n| --- | --- | --- |")
            for t in dropped:
                verdict = t.verdict.replace("regression", "**regression**")
                out.append(f"| `{t.task_id}` | {t.describe()} | {verdict} |")
        else:
            out.append("No task dropped.")
        out.append(f"\n{mean_solve_text(c)}")
        for line in _suite_line(c):
            out.append("\n" + line.strip().replace("SUITE REGRESSION", "**SUITE REGRESSION**"))
        if c.missing_tasks:
            out.append(f"\nMissing tasks: {code_names(c.missing_tasks)}")
        if c.new_tasks:
            out.append(f"\nNew tasks: {code_names(c.new_tasks)}")
        out.append("")
    return "\n".join(out)


def comparisons_json(
    matches: list[BaselineMatch],
    warnings: list[str] | None = None,
    one_sided: OneSided | None = None,
) -> str:
    """`compare --json`: one document with every match, the models compared with nothing
    (in one run only) and the warnings."""
    sides = one_sided or OneSided()
    doc = {
        "comparisons": [m.to_dict() for m in matches],
        "only_in_run": sides.only_after,
        "only_in_against": sides.only_before,
        "warnings": list(warnings or []),
    }
    return json.dumps(doc, indent=2)
