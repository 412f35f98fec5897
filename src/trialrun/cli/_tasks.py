"""`trialrun validate`, `trialrun list` and `trialrun schema`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from trialrun.tasks import LoadReport, Task


def _task_row(task: Task) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "suite": task.suite,
        "tier": task.tier,
        "k": task.k,
        "metric": task.metric,
        "policy": task.policy,
        "tags": list(task.tags),
        "format": task.source_format,
        "file": str(task.source) if task.source else None,
    }


def _report_json(report: LoadReport) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "tasks": [_task_row(t) for t in report.tasks],
        "problems": [p.as_dict() for p in report.problems],
        "warnings": [w.as_dict() for w in report.warnings],
        "skipped": [{"path": str(p), "reason": r} for p, r in report.skipped],
        "files": [str(f) for f in report.files],
    }


_PATHS_HELP = "Task files or folders (scanned recursively)."
_LINKS_HELP = "Accept fixture symlinks that resolve outside the suite folder."


def _exit(code: int) -> None:
    # SystemExit, not typer.Exit: under `standalone_mode=False` click swallows Exit's code.
    raise SystemExit(code)


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def validate(
    paths: list[Path] = typer.Argument(..., help=_PATHS_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    allow_external_links: bool = typer.Option(
        False, "--allow-external-links", help=_LINKS_HELP
    ),
) -> None:
    """Check task files and suite configs: every problem in every file, one line each
    (exit 2 on any). A suite config is checked completely without loading a dataset."""
    from trialrun.agents import preset_names
    from trialrun.cli import _suite_validate as suite_files
    from trialrun.tasks import load_tasks

    suites, paths = suite_files.split_suites(paths)
    if not paths:
        _exit(suite_files.validate_suites(suites, as_json=as_json))
    checks = suite_files.suite_checks(suites)
    suite_code = suite_files.exit_code(checks)
    report = load_tasks(
        paths, allow_external_links=allow_external_links, agents=preset_names()
    )
    suite_files.leave_out(report, suites)
    if as_json:
        doc = {**_report_json(report), "suites": suite_files.checks_json(checks)}
        doc["ok"] = report.ok and not suite_code
        print(json.dumps(doc, indent=2, default=str))
        _exit(max(suite_code, 0 if report.ok else 2))
    if checks:
        suite_files.print_checks(checks)
    for path, reason in report.skipped:
        _err(f"{path}: skipped: {reason}")
    for problem in report.problems:
        _err(str(problem))
    for warning in report.warnings:
        _err(str(warning))
    files = len(report.files)
    print(
        f"{len(report.tasks)} valid task(s) in {files} file(s): "
        f"{len(report.problems)} problem(s), {len(report.warnings)} warning(s), "
        f"{len(report.skipped)} skipped file(s)"
    )
    _exit(max(suite_code, 0 if report.ok else 2))


def list_tasks(
    paths: list[Path] = typer.Argument(None, help=_PATHS_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    allow_external_links: bool = typer.Option(
        False, "--allow-external-links", help=_LINKS_HELP
    ),
    benchmarks: bool = typer.Option(
        False, "--benchmarks", help="List the built-in benchmarks and backends instead."
    ),
) -> None:
    """One line per task: id, suite, tier, k, file (ids never truncated)."""
    if benchmarks or not paths:  # no paths: benchmarks and backends, as openjarvis-eval
        from trialrun.cli._benchmarks import list_benchmarks

        list_benchmarks(as_json)
    from trialrun.tasks import load_tasks

    report = load_tasks(paths, allow_external_links=allow_external_links)
    if as_json:
        print(json.dumps(_report_json(report), indent=2, default=str))
        _exit(0 if report.ok else 2)
    rows = [
        (t.task_id, t.suite, t.tier or "-", str(t.k), str(t.source or "-"))
        for t in report.tasks
    ]
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:4])]
        print("  ".join([*cells, row[4]]))
    for path, reason in report.skipped:
        _err(f"{path}: skipped: {reason}")
    for problem in report.problems:
        _err(str(problem))
    _exit(0 if report.ok else 2)


def schema() -> None:
    """Print the JSON Schema (2020-12) of a native task file."""
    from trialrun.tasks import task_json_schema

    print(json.dumps(task_json_schema(), indent=2))


def register(app: typer.Typer) -> None:
    app.command()(validate)
    app.command("list")(list_tasks)
    app.command()(schema)
