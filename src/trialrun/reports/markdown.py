"""A Markdown report that fits a GitHub step summary ($GITHUB_STEP_SUMMARY): headline,
per-model table, failed tasks with their graders, regressions against the baselines."""

from __future__ import annotations

from pathlib import Path

from trialrun.reports._format import DASH, md_cell, money, pct, seconds
from trialrun.reports.comparison import comparisons_markdown
from trialrun.reports.junit import task_outcome
from trialrun.reports.models import render_models_markdown
from trialrun.tracking import RunData, compare_with_baselines, load_run

MAX_FAILED_ROWS = 60


def _model_table(run: RunData) -> list[str]:
    lines = [
        "| Model | Tasks | pass^k | solve^k | pass@k | flaky | insufficient | P95 latency | cost |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for model in run.models:
        a = run.summary.aggregate.get(model) or {}
        lines.append(
            f"| `{md_cell(model)}` | {len(run.for_model(model))} | {pct(a.get('pass_k_rate'))} | "
            f"{pct(a.get('solve_k_rate'))} | {pct(a.get('pass_at_k_rate'))} | "
            f"{a.get('flaky_task_count', DASH)} | {a.get('insufficient', DASH)} | "
            f"{seconds(a.get('latency_p95_s'))} | {money(a.get('cost_usd'))} |"
        )
    return lines


def render_run_markdown(run: RunData, baselines_dir: Path | str | None = None) -> str:
    outcomes = {(r.model, r.task_id): task_outcome(r) for r in run.records}
    bad = [key for key, (status, _) in outcomes.items() if status != "passed"]
    total = len(outcomes)
    failed = sum(1 for key in bad if outcomes[key][0] == "failure")
    icon = "✅" if not bad else "❌"
    lines = [f"## {icon} trialrun · run `{run.run_id}`", ""]
    headline = f"**{total - len(bad)}/{total}** task × model results met their metric"
    if bad:
        other = len(bad) - failed
        headline += f"; {failed} failed" + (f", {other} errored or insufficient" if other else "")
    lines += [headline + ".", ""]
    lines += [*_model_table(run), ""]

    if bad:
        lines += [
            "### Failed tasks",
            "",
            "| Model | Task | Suite | Result |",
            "| --- | --- | --- | --- |",
        ]
        records = {(r.model, r.task_id): r for r in run.records}
        for key in bad[:MAX_FAILED_ROWS]:
            status, message = outcomes[key]
            lines.append(
                f"| `{md_cell(key[0])}` | `{md_cell(key[1])}` | {records[key].suite} | "
                f"{status}: {md_cell(message)} |"
            )
        if len(bad) > MAX_FAILED_ROWS:
            lines.append(f"\n…and {len(bad) - MAX_FAILED_ROWS} more (see the JUnit report).")
        lines.append("")

    if len(run.models) > 1:
        lines += [
            "<details><summary>Models side by side</summary>",
            "",
            render_models_markdown(run.summary),
            "</details>",
            "",
        ]

    if baselines_dir is not None:
        lines += ["### Against the baselines", ""]
        for match in compare_with_baselines(run, baselines_dir):
            if match.comparison is None:
                lines.append(f"- `{md_cell(match.model)}`: no baseline at `{match.baseline_path}`")
            else:
                lines.append(comparisons_markdown([match.comparison]))
        lines.append("")
    return "\n".join(lines)


def write_markdown(
    run_dir: RunData | Path | str, path: Path | str, baselines_dir: Path | str | None = None
) -> Path:
    """Write the Markdown report to `path` (e.g. "$GITHUB_STEP_SUMMARY"), replacing it."""
    run = run_dir if isinstance(run_dir, RunData) else load_run(run_dir)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_run_markdown(run, baselines_dir), encoding="utf-8")
    return target
