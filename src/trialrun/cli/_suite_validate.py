"""`validate` for suite configs: the suite files among the paths (a folder holding only
suite files counts as suites), each checked completely, one line per problem."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

_TASK_LIKE = (".json", ".yaml", ".yml", ".toml")


def _suite_files(folder: Path) -> tuple[list[Path], bool]:
    """(the suite files under `folder`, whether it holds other task-like files too)."""
    from trialrun.benchmarks import is_suite_file

    suites: list[Path] = []
    others = False
    for file in sorted(folder.rglob("*")):
        parts = file.relative_to(folder).parts
        if any(part.startswith(".") for part in parts) or file.suffix.lower() not in _TASK_LIKE:
            continue
        if is_suite_file(file):
            suites.append(file)
        elif file.is_file() and file.name not in ("trialrun.toml", "pyproject.toml"):
            others = True
    return suites, others


def split_suites(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(suite files, the paths left for the task loader)."""
    from trialrun.benchmarks import is_suite_file

    suites: list[Path] = []
    rest: list[Path] = []
    for path in paths:
        if path.is_dir():
            found, others = _suite_files(path)
            suites.extend(found)
            if others or not found:
                rest.append(path)
        elif is_suite_file(path):
            suites.append(path)
        else:
            rest.append(path)
    return suites, rest


def leave_out(report: Any, suites: list[Path]) -> None:
    """The task loader's word on the suite files (skipped, or a template's TOML error),
    dropped: they are checked as suites."""
    shown = {p.resolve() for p in suites}
    report.skipped = [(p, r) for p, r in report.skipped if p.resolve() not in shown]
    report.problems = [p for p in report.problems if p.path.resolve() not in shown]
    report.warnings = [p for p in report.warnings if p.path.resolve() not in shown]
    report.files = [p for p in report.files if p.resolve() not in shown]
    report.invalid_files = [p for p in report.invalid_files if p.resolve() not in shown]


def suite_checks(suites: list[Path]) -> list[Any]:
    from trialrun.benchmarks import check_suite_file

    return [check_suite_file(path) for path in suites]


def checks_json(checks: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "file": str(c.path),
            "ok": c.ok and not c.template,
            "template": c.template,
            "problems": c.problems,
            "warnings": c.warnings,
        }
        for c in checks
    ]


def exit_code(checks: list[Any]) -> int:
    """2 when any suite file has a problem (a template is named, not refused)."""
    return 2 if any(c.problems for c in checks) else 0


def print_checks(checks: list[Any]) -> None:
    """Each problem, template and warning one line on stderr; the count on stdout."""
    for check in checks:
        if check.template:
            print(check.template_line(), file=sys.stderr)
        for line in check.problems:
            print(line, file=sys.stderr)
        for line in check.warnings:
            print(f"warning: {line}", file=sys.stderr)
    refused = sum(1 for c in checks if c.problems)
    templates = sum(1 for c in checks if c.template)
    problems = sum(len(c.problems) for c in checks)
    print(
        f"{len(checks)} suite file(s): {len(checks) - refused - templates} accepted, "
        f"{refused} refused ({problems} problem(s)), {templates} template(s)"
    )


def validate_suites(suites: list[Path], *, as_json: bool) -> int:
    """Check each suite file; print its lines (or one JSON document); the exit code."""
    checks = suite_checks(suites)
    if as_json:
        doc = {"ok": not exit_code(checks), "suites": checks_json(checks)}
        print(json.dumps(doc, indent=2))
    else:
        print_checks(checks)
    return exit_code(checks)
