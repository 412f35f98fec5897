"""Terminal tables for a run summary: one model, or several side by side.

Per task `solved/n` (n = trials counted for solve), ⚠ when flaky, `?N` for undetermined
trials, `!N` for infra errors; failed graders are named for tasks that are not solved.
Rates are fractions in files and percentages here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def cell(row: dict[str, Any]) -> Text:
    """`solved/n` with ⚠ (flaky), ?N (undetermined), !N (infra errors)."""
    solve_n = row["n"] - row["undetermined"]
    text = Text(f"{row['solved']}/{solve_n}")
    if row["n"] == 0 and not row["infra_errors"]:
        return Text("not run", style="dim")
    if row["flaky"]:
        text.append(" ⚠", style="yellow")
    elif solve_n and row["solved"] == solve_n:
        text.stylize("green")
    elif solve_n:
        text.stylize("red")
    if row["undetermined"]:
        text.append(f" ?{row['undetermined']}", style="magenta")
    if row["infra_errors"]:
        text.append(f" !{row['infra_errors']}", style="blue")
    return text


def notes(row: dict[str, Any]) -> str:
    parts: list[str] = []
    failed = row.get("failed_graders") or {}
    if failed and row["solved"] < row["n"] - row["undetermined"]:
        parts.append("failed: " + ", ".join(f"{g}×{c}" for g, c in failed.items()))
    errors = {k: v for k, v in (row.get("errors") or {}).items()}
    if errors:
        parts.append("errors: " + ", ".join(f"{k}×{v}" for k, v in errors.items()))
    if row.get("safety_violations"):
        parts.append(f"safety violations: {row['safety_violations']}")
    if row["pass_k"] is None or row["solve_k"] is None:
        parts.append(f"insufficient (<{row['k']} counted)")
    return "; ".join(parts)


def _fig(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def tier_lines(agg: dict[str, Any]) -> list[str]:
    out = []
    for tier, t in sorted((agg.get("by_tier") or {}).items()):
        out.append(
            f"{tier}: {t['passed_k']}/{t['tasks']} tasks meet pass^k, "
            f"{t['solved_k']}/{t['tasks']} meet solve^k"
        )
    return out


def summary_lines(agg: dict[str, Any]) -> list[str]:
    lines = [
        f"pass^k {pct(agg['pass_k_rate'])}   solve^k {pct(agg['solve_k_rate'])}   "
        f"mean pass {pct(agg['mean_pass_rate'])}   mean solve {pct(agg['mean_solve_rate'])}",
        f"flaky tasks {agg['flaky_task_count']}   insufficient {agg['insufficient']}   "
        f"infra errors {agg.get('infra_errors', 0)}   undetermined {agg.get('undetermined', 0)}",
    ]
    lat = agg.get("latency_p50_s"), agg.get("latency_p95_s")
    tokens = agg.get("tokens") or {}
    cost = agg.get("cost_usd")
    extra = []
    if lat[0] is not None:
        extra.append(f"latency p50 {lat[0]:.3f}s p95 {lat[1]:.3f}s")
    if agg.get("mean_turns") is not None:
        extra.append(f"mean turns {agg['mean_turns']:.1f}")
    extra.append(f"tokens {tokens.get('prompt', 0)}+{tokens.get('completion', 0)}")
    if cost is not None:
        extra.append(f"cost ${cost:.4f}")
    lines.append("   ".join(extra))
    return lines + tier_lines(agg)


def _longest(names: Iterable[str]) -> int:
    return max((len(n) for n in names), default=4)


def render_single(summary: dict[str, Any], console: Console, model: str) -> None:
    rows = [r for r in summary["tasks"] if r["model"] == model]
    longest = _longest(r["task_id"] for r in rows)
    # On a narrow terminal the notes go under the table rather than into a squeezed column.
    inline_notes = console.width >= longest + 70
    # model specs are paths and may hold "[...]": never rich markup
    table = Table(title=Text(model), title_justify="left", show_lines=False)
    # Task ids are never cut or wrapped: users copy them into --task.
    table.add_column("task", no_wrap=True, min_width=longest)
    table.add_column("tier")
    table.add_column("solved/n", justify="right")
    table.add_column("pass^k", justify="right")
    table.add_column("solve^k", justify="right")
    table.add_column("pass@k", justify="right")
    if inline_notes:
        table.add_column("notes", overflow="fold")
    below: list[str] = []
    for r in rows:
        cells = [
            r["task_id"],
            r["tier"] or "",
            cell(r),
            _fig(r["pass_k"]),
            _fig(r["solve_k"]),
            _fig(r["pass_at_k"]),
        ]
        note = notes(r)
        if inline_notes:
            cells.append(Text(note))
        elif note:
            below.append(f"  {r['task_id']}: {note}")
        table.add_row(*cells)
    console.print(table)
    for line in below:
        console.print(Text(line), soft_wrap=True)
    for line in summary_lines(summary["aggregate"][model]):
        console.print(line, highlight=False)


def render_side_by_side(summary: dict[str, Any], console: Console) -> None:
    models = summary["models"]
    table = Table(title="solved/n per task and model", title_justify="left")
    table.add_column(
        "task", no_wrap=True, min_width=_longest(r["task_id"] for r in summary["tasks"])
    )
    table.add_column("tier")
    for m in models:
        table.add_column(Text(m), justify="right", overflow="fold")
    by_key = {(r["task_id"], r["model"]): r for r in summary["tasks"]}
    task_ids = list(dict.fromkeys(r["task_id"] for r in summary["tasks"]))
    for tid in task_ids:
        first = next(by_key[(tid, m)] for m in models if (tid, m) in by_key)
        table.add_row(
            tid,
            first["tier"] or "",
            *[cell(by_key[(tid, m)]) if (tid, m) in by_key else Text("—") for m in models],
        )
    table.add_section()
    aggs = [summary["aggregate"].get(m, {}) for m in models]
    for label, key in (
        ("pass^k", "pass_k_rate"),
        ("solve^k", "solve_k_rate"),
        ("mean pass", "mean_pass_rate"),
        ("mean solve", "mean_solve_rate"),
    ):
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


def render_summary(summary: dict[str, Any], console: Console) -> None:
    """The end table: one model in detail, or several side by side."""
    models = summary.get("models") or []
    if len(models) == 1:
        render_single(summary, console, models[0])
    else:
        render_side_by_side(summary, console)


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit} more chars; --full shows all]"


def render_transcript(
    transcript: dict[str, Any], line: dict[str, Any], console: Console, truncate: int | None = 800
) -> None:
    """A readable transcript: roles, tool calls with arguments, results, answer, verdicts."""
    mark = {True: ("yes", "green"), False: ("no", "red"), None: ("?", "magenta")}
    latency = line.get("latency_s")
    latency_text = f"{latency:.3f}s" if isinstance(latency, (int, float)) else "?s"
    # text from files (model specs, messages, errors) is never read as rich markup
    console.print(
        Text.assemble(
            (str(line.get("task_id")), "bold"),
            f" trial {line.get('trial')} · {line.get('model')} · pass ",
            mark.get(line.get("pass"), mark[None]),
            " · solve ",
            mark.get(line.get("solve"), mark[None]),
            f" · {line.get('turns') or 0} turns · {latency_text}",
        )
    )
    error = line.get("error")
    if isinstance(error, dict):
        console.print(
            Text.assemble(("error", "red"), f" {error.get('kind')}: {error.get('message')}")
        )
    for msg in transcript.get("messages") or []:
        if not isinstance(msg, dict):
            continue
        role = str(msg.get("role", "?"))
        style = {"system": "dim", "user": "cyan", "assistant": "green", "tool": "yellow"}.get(
            role, ""
        )
        console.rule(Text(role, style=style), align="left")
        content = msg.get("content")
        if role == "tool":
            console.print(_clip(str(content or ""), truncate), highlight=False, markup=False)
            continue
        if content:
            console.print(
                _clip(str(content), truncate if role != "assistant" else None),
                highlight=False,
                markup=False,
            )
        for call in msg.get("tool_calls") or []:
            fn = (call.get("function") if isinstance(call, dict) else None) or {}
            console.print(
                Text.assemble(
                    ("→ ", "bold"), (str(fn.get("name", "?")), "bold"), f"({fn.get('arguments')})"
                )
            )
    console.rule("[bold]final answer[/bold]", align="left")
    console.print(str(transcript.get("final_text") or "(none)"), highlight=False, markup=False)
    console.rule("[bold]verdicts[/bold]", align="left")
    for v in line.get("verdicts") or []:
        details = json.dumps(v.get("details") or {}, ensure_ascii=False, default=str)
        passed = v.get("passed")
        console.print(
            Text.assemble(
                ("✓ " if passed is True else "✗ " if passed is False else "? "),
                (str(v.get("grader")), "bold"),
                " ",
                (_clip(details, truncate), "dim"),
            )
        )
