"""A Markdown report that fits a GitHub step summary ($GITHUB_STEP_SUMMARY): headline,
per-model table, failed tasks with their graders, regressions against the baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.reports.junit import task_outcome
from trialrun.tracking._run_data import RunData, load_run

MAX_FAILED_ROWS = 60


def _pct(value: Any) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{value * 100:.1f}%"


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


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

    agg = run.summary.get("aggregate") or {}
    lines += [
        "| Model | Tasks | pass^k | solve^k | pass@k | flaky | insufficient | P95 latency | cost |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for model in run.models:
        a = agg.get(model) or {}
        p95 = a.get("latency_p95_s")
        cost = a.get("cost_usd")
        lines.append(
            f"| `{_esc(model)}` | {len(run.for_model(model))} | {_pct(a.get('pass_k_rate'))} | "
            f"{_pct(a.get('solve_k_rate'))} | {_pct(a.get('pass_at_k_rate'))} | "
            f"{a.get('flaky_task_count', '—')} | {a.get('insufficient', '—')} | "
            f"{'—' if p95 is None else f'{p95:.2f} s'} | "
            f"{'—' if cost is None else f'${cost:.4f}'} |"
        )
    lines.append("")

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
            record = records[key]
            lines.append(
                f"| `{_esc(key[0])}` | `{_esc(key[1])}` | {record.suite} | "
                f"{status}: {_esc(message)} |"
            )
        if len(bad) > MAX_FAILED_ROWS:
            lines.append(f"\n…and {len(bad) - MAX_FAILED_ROWS} more (see the JUnit report).")
        lines.append("")

    if len(run.models) > 1:
        from trialrun.reports.comparison import render_models_markdown

        lines += [
            "<details><summary>Models side by side</summary>",
            "",
            render_models_markdown(run.summary),
            "</details>",
            "",
        ]

    if baselines_dir is not None:
        from trialrun.tracking._compare import compare_with_baselines, render_markdown

        lines += ["### Against the baselines", ""]
        for match in compare_with_baselines(run, baselines_dir):
            if match.comparison is None:
                lines.append(f"- `{_esc(match.model)}`: no baseline at `{match.baseline_path}`")
            else:
                lines.append(render_markdown([match.comparison]))
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
