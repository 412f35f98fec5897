"""`validate` for suite configs: the suite files among the paths (a folder holding only
suite files counts as suites), each checked completely, one line per problem."""

from __future__ import annotations

import json
import sys
from pathlib import Path

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


def validate_suites(suites: list[Path], *, as_json: bool) -> int:
    """Check each suite file; print its lines; 2 when any has a problem, else 0."""
    from trialrun.benchmarks import check_suite_file

    checks = [check_suite_file(path) for path in suites]
    refused = [c for c in checks if c.problems]
    templates = [c for c in checks if c.template]
    code = 2 if refused else 0
    if as_json:
        doc = {
            "suites": [
                {
                    "file": str(c.path),
                    "ok": c.ok and not c.template,
                    "template": c.template,
                    "problems": c.problems,
                    "warnings": c.warnings,
                }
                for c in checks
            ]
        }
        print(json.dumps(doc, indent=2))
        return code
    for check in checks:
        if check.template:
            print(check.template_line(), file=sys.stderr)
        for line in check.problems:
            print(line, file=sys.stderr)
        for line in check.warnings:
            print(f"warning: {line}", file=sys.stderr)
    accepted = len(checks) - len(refused) - len(templates)
    problems = sum(len(c.problems) for c in checks)
    print(
        f"{len(checks)} suite file(s): {accepted} accepted, {len(refused)} refused "
        f"({problems} problem(s)), {len(templates)} template(s)"
    )
    return code
