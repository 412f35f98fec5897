"""`trialrun judge extract | calibrate | bias` and `trialrun regrade`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from trialrun.errors import UserError


def _fmt(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:.1%}" if pct else f"{value:.3f}"


def _print_calibration(judges: list[dict[str, Any]], warnings: list[str]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    table = Table(title="Judge vs human labels (YES = positive)")
    table.add_column("metric")
    for j in judges:
        table.add_column(escape(str(j["judge"])), justify="right")
    rows: list[tuple[str, str, bool]] = [
        ("n", "n", False),
        ("agreement", "agreement", True),
        ("majority baseline", "majority_baseline", True),
        ("Cohen's κ", "kappa", False),
        ("precision YES", "precision_yes", False),
        ("recall YES", "recall_yes", False),
        ("F1 YES", "f1_yes", False),
        ("precision NO", "precision_no", False),
        ("recall NO", "recall_no", False),
        ("F1 NO", "f1_no", False),
    ]
    for label, key, pct in rows:
        cells = [str(j[key]) if key == "n" else _fmt(j[key], pct) for j in judges]
        table.add_row(label, *cells)
    table.add_row(
        "tp / fp / tn / fn", *("{tp} / {fp} / {tn} / {fn}".format(**j["confusion"]) for j in judges)
    )
    table.add_row("no verdict (judge failed)", *(str(j["judge_failed"]) for j in judges))
    if any("constrained" in j for j in judges):
        table.add_row(
            "constrained / plain replies",
            *(
                f"{j['constrained']} / {j['unconstrained']}" if "constrained" in j else "—"
                for j in judges
            ),
        )
    table.add_row("unlabelled (skipped)", *(str(j["skipped_unlabelled"]) for j in judges))
    console.print(table)
    for warning in warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}")


def extract(
    run_dir: Path = typer.Argument(..., help="A run directory (results/<run-id>)."),
    out: Path = typer.Option(..., "-o", "--out", help="The gold file to write."),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write one unlabelled tuple per judge verdict of a run (fill in human_label)."""
    from trialrun.analysis import write_gold

    gold = write_gold(run_dir, out, force=force)
    print(
        f"wrote {len(gold['tuples'])} tuple(s) to {out}; set each human_label to "
        '"YES" or "NO", then run `trialrun judge calibrate`'
    )


def calibrate(
    gold_file: Path = typer.Argument(..., help="A gold file from `judge extract`."),
    judge: list[str] = typer.Option(
        [],
        "--judge",
        help="A judge model spec to measure (repeatable); append ?constrained=false "
        "to measure it without the reply constraint.",
    ),
    recorded: bool = typer.Option(
        False, "--recorded", help="Score the stored automated verdicts; loads no model."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
) -> None:
    """Agreement, Cohen's κ, P/R/F1 and confusion of judges against human labels."""
    import asyncio

    from trialrun.analysis import calibrate_recorded, load_gold
    from trialrun.config import load_config
    from trialrun.judge import JudgeSettings, resolve_judge_spec

    gold = load_gold(gold_file)
    project = load_config()  # once, here: every judge measured reads the same [judge]
    specs = list(judge)
    if not specs and not recorded:
        configured = resolve_judge_spec(None, JudgeSettings.from_config(project))
        if configured is None:
            raise UserError(
                "judge calibrate: nothing to measure; pass --recorded, --judge SPEC, "
                "or set [judge] model in trialrun.toml"
            )
        specs = [configured]
    scores = [calibrate_recorded(gold)] if recorded else []
    if specs:
        from trialrun.analysis import calibrate_model
        from trialrun.judge import check_judge_spec, split_judge_variant

        for spec in specs:
            check_judge_spec(split_judge_variant(spec)[0])

        async def run_all() -> list[Any]:
            return [await calibrate_model(gold, spec, config=project) for spec in specs]

        scores += asyncio.run(run_all())
    judges = [s.as_dict() for s in scores]
    warnings = [w for s in scores for w in s.warnings]
    if as_json:
        sys.stdout.write(json.dumps({"judges": judges, "warnings": warnings}, indent=2) + "\n")
        return
    _print_calibration(judges, warnings)


def bias(
    run_dir: Path = typer.Argument(..., help="A run directory (results/<run-id>)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
) -> None:
    """Position flips of pairwise verdicts, YES rate by response length, same family."""
    from trialrun.analysis import bias_report

    report = bias_report(run_dir)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    pw = report["pairwise"]
    console.print(
        f"pairwise: {pw['n']} verdict(s) decided in both orders, {pw['flips']} flipped "
        f"by swapping positions ({_fmt(pw['flip_rate'], True)}); position A preferred in "
        f"{_fmt(pw['position_a_preferred_rate'], True)} of decisive verdicts"
    )
    table = Table(title="judge YES rate by response length (characters)")
    for col in ("length", "verdicts", "YES", "YES rate"):
        table.add_column(col, justify="right")
    for b in report["length_buckets"]:
        table.add_row(b["bucket"], str(b["n"]), str(b["yes"]), _fmt(b["yes_rate"], True))
    console.print(table)
    for warning in report["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}")


def regrade(
    run_dir: Path = typer.Argument(..., help="A run directory (results/<run-id>)."),
    judge: str | None = typer.Option(
        None, "--judge", help="Judge model spec (default: [judge] model, else the run's)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Write the regraded run to this new folder instead."
    ),
    tasks: list[Path] = typer.Option(
        [], "--tasks", help="Task files/folders (default: the run's task_files)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
) -> None:
    """Re-apply the tasks' graders to a run's stored transcripts; rewrite its results."""
    from trialrun.analysis import regrade as do_regrade

    report = do_regrade(run_dir, judge_spec=judge, out=out, tasks=list(tasks) or None)
    if as_json:
        sys.stdout.write(json.dumps(report.as_dict(), indent=2) + "\n")
        return
    print(
        f"regraded {report.regraded}/{report.trials} trial(s) in {report.run_dir} "
        f"(judge: {report.judge or 'none'}; {report.judge_calls} judge call(s), "
        f"{report.judge_cached} cached; {report.kept_verdicts} workspace verdict(s) kept; "
        f"solve changed on {report.solve_changed})"
    )
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)


def register(app: typer.Typer) -> None:
    judge_app = typer.Typer(
        help="Judge calibration: gold sets, agreement with humans, bias report.",
        no_args_is_help=True,
    )
    app.add_typer(judge_app, name="judge")

    judge_app.command()(extract)
    judge_app.command()(calibrate)
    judge_app.command()(bias)
    app.command()(regrade)
