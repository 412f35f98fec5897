"""`trialrun plan`: what a run of these tasks can detect, before running it."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from trialrun.errors import UserError


def register(app: typer.Typer) -> None:
    @app.command()
    def plan(
        paths: list[Path] = typer.Argument(..., help="Task files or folders."),
        k: int | None = typer.Option(None, "-k", help="Trials per task (default: each task's)."),
        baseline: Path | None = typer.Option(
            None, "--baseline", help="A baseline file: its per-task solve rates."
        ),
        rate: float = typer.Option(
            0.9, "--rate", help="Assumed solve rate for tasks without a baseline rate."
        ),
        as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    ) -> None:
        """Power before the run: the smallest drop detectable with 80% power, and the k
        needed for a 10- and a 20-point drop, per task and for the suite."""
        from trialrun.config import load_config
        from trialrun.tasks import load_tasks
        from trialrun.tracking import CompareSettings, load_baseline
        from trialrun.tracking import plan as make_plan

        if not 0 < rate <= 1:
            raise UserError(f"--rate {rate}: must be in (0, 1]; pass e.g. --rate 0.9")
        if k is not None and k < 1:
            raise UserError(f"-k {k}: must be a whole number ≥ 1")
        project = load_config()  # once: the task files' limits and [compare]
        report = load_tasks(paths, config=project)
        if not report.ok or not report.tasks:
            where = ", ".join(str(p) for p in paths)
            raise UserError(f"{where}: no valid task; run `trialrun validate {where}`")
        rates: dict[str, float] = {}
        if baseline is not None:
            for entry in load_baseline(baseline).tasks:
                solve_n = int(entry.get("n") or 0) - int(entry.get("undetermined") or 0)
                if solve_n > 0:
                    rates[str(entry["task_id"])] = int(entry.get("solved") or 0) / solve_n
        rows = [
            (
                t.task_id,
                k or t.k,
                rates.get(t.task_id, rate),
                "baseline" if t.task_id in rates else "assumed",
            )
            for t in report.tasks
        ]
        settings = CompareSettings.of(project)
        result = make_plan(rows, settings.alpha, settings.method)
        if as_json:
            print(json.dumps(result.to_dict(), indent=2))
            return
        print(result.suite_line())
        if result.tasks:
            print(
                f"suite: k needed for a uniform 10-point drop: {_k(result.suite_k_for_10)}; "
                f"20-point: {_k(result.suite_k_for_20)}"
            )
        aside = result.set_aside_line()
        if aside is not None:
            print(aside)
        for t in result.tasks:
            drop = f"{t.min_drop * 100:.0f} points" if t.min_drop is not None else "none"
            print(
                f"  {t.task_id}: k = {t.k}, rate {t.rate:.0%} ({t.rate_source}); "
                f"smallest detectable drop {drop}; k for 10/20 points: "
                f"{_k(t.k_for_10)}/{_k(t.k_for_20)}"
            )


def _k(value: int | None) -> str:
    return str(value) if value is not None else "more than practical"
