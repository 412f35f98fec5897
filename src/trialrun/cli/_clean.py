"""`trialrun clean`: remove the workspaces killed runs left in their run folders."""

from __future__ import annotations

from pathlib import Path

import typer


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def register(app: typer.Typer) -> None:
    @app.command()
    def clean(
        results_dir: Path = typer.Argument(
            Path("results"), help="The results folder (run --out), or one run folder."
        ),
    ) -> None:
        """Remove the in-flight workspaces of killed runs (never a running run's)."""
        from trialrun.runner import clean_runs

        report = clean_runs(results_dir)
        for removed in report.removed:
            typer.echo(
                f"removed {removed.folder}: "
                f"{_count(removed.workspaces, 'workspace')}, {_size(removed.bytes)}"
            )
        for run_dir, holder in report.running:
            typer.echo(f"skipped {run_dir}: running ({holder})")
        if not report.removed:
            typer.echo(f"nothing to clean under {results_dir}")
            return
        workspaces = sum(r.workspaces for r in report.removed)
        freed = sum(r.bytes for r in report.removed)
        typer.echo(
            f"freed {_size(freed)}: {_count(workspaces, 'workspace')} of "
            f"{_count(len(report.removed), 'run')}"
        )
