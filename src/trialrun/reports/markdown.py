"""A Markdown report that fits a GitHub step summary ($GITHUB_STEP_SUMMARY): headline,
per-model table (each rate over how many tasks), failed tasks with their graders, each
task's tracked figures, regressions against the baselines."""

from __future__ import annotations

from pathlib import Path

from trialrun.core import redact
from trialrun.metrics import coverage
from trialrun.reports._format import DASH, md_cell, money, pct, seconds, tracked_text
from trialrun.reports._verdict import PASS_K_DEFINITION
from trialrun.reports.comparison import comparisons_markdown
from trialrun.reports.junit import task_outcome
from trialrun.reports.models import render_models_markdown
from trialrun.rundir import WriteError
from trialrun.tracking import CompareSettings, RunData, compare_with_baselines, load_run

MAX_FAILED_ROWS = 60


def _rate(value: float | None, with_value: int, tasks: int) -> str:
    """A headline rate, with the tasks it is over when some are insufficient."""
    text = pct(value)
    return text if with_value == tasks else f"{text} over {with_value} of {tasks}"


def _model_table(run: RunData) -> list[str]:
    lines = [
        "| Model | Tasks | solve^k | pass@k | mean solve rate | pass^k (completed) | flaky "
        "| insufficient | P95 latency | cost |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for model in run.models:
        a = run.summary.aggregate.get(model) or {}
        rows = run.summary.rows_for(model)
        solve_k, pass_at_k, pass_k = (
            _rate(a.get(f"{figure}_rate"), *coverage(rows, figure))
            for figure in ("solve_k", "pass_at_k", "pass_k")
        )
        lines.append(
            f"| `{md_cell(model)}` | {len(run.for_model(model))} | {solve_k} | {pass_at_k} | "
            f"{pct(a.get('mean_solve_rate'))} | {pass_k} | "
            f"{a.get('flaky_task_count', DASH)} | {a.get('insufficient', DASH)} | "
            f"{seconds(a.get('latency_p95_s'))} | {money(a.get('cost_usd'))} |"
        )
    return [*lines, "", f"<sub>{PASS_K_DEFINITION}.</sub>"]


def _tracked_table(run: RunData) -> list[str]:
    """Each task's tracked figures (its `tracked_metrics`), one row per task × model."""
    rows = [
        (r.model, r.task_id, tracked_text(r.tracked))
        for r in run.summary.tasks
    ]
    rows = [row for row in rows if row[2]]
    if not rows:
        return []
    lines = [
        "### Tracked metrics",
        "",
        f"<details><summary>{len(rows)} task × model row(s)</summary>",
        "",
        "| Model | Task | tracked |",
        "| --- | --- | --- |",
    ]
    for model, task_id, text in rows[:MAX_FAILED_ROWS]:
        lines.append(f"| `{md_cell(model)}` | `{md_cell(task_id)}` | {md_cell(text)} |")
    if len(rows) > MAX_FAILED_ROWS:
        lines.append(f"\n…and {len(rows) - MAX_FAILED_ROWS} more (see summary.json).")
    return [*lines, "", "</details>", ""]


def render_run_markdown(
    run: RunData,
    baselines_dir: Path | str | None = None,
    settings: CompareSettings = CompareSettings(),
) -> str:
    """The run's Markdown report, redacted (`trialrun.core.redact`); `settings`: the
    project's `[compare]` table, for the comparison with the baselines."""
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

    lines += _tracked_table(run)

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
        for match in compare_with_baselines(run, baselines_dir, alpha=settings.alpha,
                                            method=settings.method):
            if match.comparison is None:
                lines.append(f"- `{md_cell(match.model)}`: no baseline at `{match.baseline_path}`")
            else:
                lines.append(comparisons_markdown([match.comparison]))
        lines.append("")
    return redact("\n".join(lines))


def write_markdown(
    run_dir: RunData | Path | str,
    path: Path | str,
    baselines_dir: Path | str | None = None,
    settings: CompareSettings = CompareSettings(),
) -> Path:
    """Write the Markdown report to `path` (e.g. "$GITHUB_STEP_SUMMARY"), replacing it."""
    run = run_dir if isinstance(run_dir, RunData) else load_run(run_dir)
    target = Path(path)
    text = render_run_markdown(run, baselines_dir, settings)
    try:  # a plain write, not a rename: the target may be /dev/stdout or a CI summary file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise WriteError(target, exc) from None
    return target
