"""`trialrun lint`: ALWAYS_PASSES evals must have earned it, and task files must agree
with the gates.

Flags each task (with `policy: ALWAYS_PASSES` written in its file) and each
`@eval_test("ALWAYS_PASSES", …)` test that has no promotion in the history: one never
recorded at all is a new eval created as ALWAYS_PASSES (start it as USUALLY_PASSES and
let `trialrun promote` move it up); one recorded but never promoted was set by hand.
Task files (YAML, JSON, TOML, found as `trialrun run` finds them) are also checked for a
golden task marked USUALLY_PASSES (a contradiction: a golden regression blocks merge
whatever the policy), and an invalid task file is named rather than passed over.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trialrun.history._rewrite import policy_line, read_policy
from trialrun.history._store import HistoryStore
from trialrun.tasks import load_tasks

if TYPE_CHECKING:
    from trialrun.tasks import LoadReport


@dataclass(slots=True)
class Finding:
    source: str
    line: int | None
    test_id: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.test_id}: {self.message}"


def _pytest_always(path: Path) -> list[tuple[str, int]]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, OSError, UnicodeDecodeError):
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and deco.args and isinstance(
                deco.args[0], ast.Constant
            ) and deco.args[0].value == "ALWAYS_PASSES":
                name = deco.func.attr if isinstance(deco.func, ast.Attribute) else getattr(
                    deco.func, "id", "")
                if name == "eval_test":
                    found.append((node.name, deco.lineno))
    return found


def lint(store: HistoryStore, paths: Sequence[str]) -> list[Finding]:
    recorded = {o.test_id for run in store.runs() for o in run.outcomes}
    promoted = {c["test_id"] for c in store.policy_changes() if c["action"] == "promote"}
    # source, line, id, history ids, whether a golden task
    targets: list[tuple[str, int | None, str, set[str], bool]] = []
    files = [p for raw in paths for p in (
        sorted(Path(raw).rglob("*")) if Path(raw).is_dir() else [Path(raw)])]
    for file in files:
        if file.suffix == ".py" and file.name.startswith("test"):
            for name, def_line in _pytest_always(file):
                ids = {t for t in recorded | promoted
                       if t.split("::")[0].endswith(file.name) and t.split("::")[-1] == name}
                targets.append((str(file), def_line, name, ids or {name}, False))
    report = load_tasks([p for p in paths if not p.endswith(".py")]) if any(
        not p.endswith(".py") for p in paths) else None
    findings = _invalid_files(report) + _contradictions(report)
    for task in report.tasks if report else []:
        if task.source is None or task.policy != "ALWAYS_PASSES":
            continue
        if read_policy("task", str(task.source), task.task_id) != "ALWAYS_PASSES":
            continue  # the suite's default, not written in the file
        line = policy_line(str(task.source), task.task_id)
        targets.append((str(task.source), line, task.task_id, {task.task_id},
                        task.suite == "golden"))
    for source, line, test_id, ids, golden in targets:
        if ids & promoted:
            continue
        # a golden task cannot be USUALLY_PASSES (see `_contradictions`): it starts elsewhere
        where = " in another suite than golden" if golden else ""
        if ids & recorded:
            message = ("ALWAYS_PASSES with no promotion record; let `trialrun promote` set it "
                       f"(or set it back to USUALLY_PASSES{where})")
        else:
            message = (f"new eval created as ALWAYS_PASSES; start it as USUALLY_PASSES{where} "
                       "and let `trialrun promote` move it up")
        findings.append(Finding(source, line, test_id, message))
    return findings


def _invalid_files(report: LoadReport | None) -> list[Finding]:
    """One finding per invalid task file (its first problem): not linted, not passed over."""
    if report is None:
        return []
    out = []
    for file in report.invalid_files:
        problems = [p for p in report.problems if p.path == file and p.severity == "error"]
        first = problems[0] if problems else None
        message = (
            f"{first.message if first else 'invalid'}; not a valid task file, so not linted "
            f"(`trialrun validate {file}` lists its {len(problems) or 1} problem(s))"
        )
        field = first.field if first and first.field else "task file"
        out.append(Finding(str(file), first.line if first else None, field, message))
    return out


def _contradictions(report: LoadReport | None) -> list[Finding]:
    """Golden tasks marked USUALLY_PASSES: the merge gate blocks on their regressions anyway,
    so the policy promises a leniency no gate gives."""
    out = []
    for task in report.tasks if report else []:
        if task.source is None or task.suite != "golden" or task.policy != "USUALLY_PASSES":
            continue
        source = str(task.source)
        out.append(
            Finding(
                source,
                policy_line(source, task.task_id),
                task.task_id,
                "policy USUALLY_PASSES contradicts suite golden (a golden regression blocks "
                "merge whatever the policy); fix the task and set policy: ALWAYS_PASSES, or "
                "move it out of the golden suite",
            )
        )
    return out
