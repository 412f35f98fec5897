"""The nightly report as Markdown (fits `$GITHUB_STEP_SUMMARY`), JSON or HTML."""

from __future__ import annotations

import html
import json

from trialrun.history._report import Cell, Report

FORMATS = ("markdown", "json", "html")
LEGEND = ("A cell is that run's solve rate: solved / counted trials (undetermined count as "
          "not solved; infra errors left out); – not in that run; n/a no counted trial.")


def percent(cell: Cell | None) -> str:
    """`66% (2/3)`: whole percent rounded down, so 2 of 3 reads 66 %, never 67 %."""
    if cell is None:
        return "–"
    if not cell.trials:
        return "n/a"
    return f"{cell.solved * 100 // cell.trials}% ({cell.solved}/{cell.trials})"


def _run_label(report: Report, i: int) -> str:
    run = report.runs[i]
    return f"{run.started_at[:10]} {run.started_at[11:16]}"


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        return render_html(report)
    return render_markdown(report)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report) -> str:
    filters = ", ".join(f"{k} {v}" for k, v in report.filters.items())
    lines = [f"## Eval history ({len(report.runs)} runs; {filters})", ""]
    if not report.runs:
        return "\n".join([*lines, "No recorded runs match.", ""])
    heads = [_run_label(report, i) for i in range(len(report.runs))]
    lines.append("| test | model | policy | " + " | ".join(heads) + " | trend |")
    lines.append("| --- | --- | --- | " + " | ".join("---:" for _ in heads) + " | --- |")
    for row in report.rows:
        trend = f"**⚠ {row.trend}**" if row.trend else ""
        cells = " | ".join(percent(c) for c in row.cells)
        lines.append(
            f"| {_md(row.test_id)} | {_md(row.model)} | {row.policy or ''} | {cells} | {trend} |"
        )
    totals = " | ".join(f"**{percent(c)}**" for c in report.totals)
    lines.append(f"| **all** | | | {totals} | |")
    lines.append("")
    runs = ", ".join(
        f"{r.run_id} ({r.trigger}{', ' + r.git_branch if r.git_branch else ''}"
        f"{', ' + r.git_sha[:8] if r.git_sha else ''})"
        for r in report.runs
    )
    lines.append(f"Runs, oldest first: {runs}.")
    lines.append("")
    lines.append(f"_{LEGEND}_")
    worse = report.worse
    lines.append("")
    if worse:
        lines.append(f"**Trending worse ({len(worse)}):** " + "; ".join(
            f"{_md(r.test_id)} on {_md(r.model)}: {r.trend}" for r in worse) + ".")
    else:
        lines.append("Nothing trending worse.")
    lines.append("")
    return "\n".join(lines)


def render_html(report: Report) -> str:
    e = html.escape
    heads = "".join(f"<th>{e(_run_label(report, i))}</th>" for i in range(len(report.runs)))
    body = []
    for row in report.rows:
        cls = ' class="worse"' if row.trend else ""
        cells = "".join(f"<td>{e(percent(c))}</td>" for c in row.cells)
        body.append(
            f"<tr{cls}><td>{e(row.test_id)}</td><td>{e(row.model)}</td>"
            f"<td>{e(row.policy or '')}</td>{cells}<td>{e(row.trend or '')}</td></tr>"
        )
    totals = "".join(f"<td><b>{e(percent(c))}</b></td>" for c in report.totals)
    body.append(f"<tr><td><b>all</b></td><td></td><td></td>{totals}<td></td></tr>")
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Eval history</title>"
        "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
        "tr.worse{background:#fde2e1}</style></head><body>\n"
        f"<h2>Eval history ({len(report.runs)} runs)</h2>\n"
        f"<table><tr><th>test</th><th>model</th><th>policy</th>{heads}<th>trend</th></tr>\n"
        + "\n".join(body)
        + f"\n</table><p>{e(LEGEND)}</p></body></html>\n"
    )
