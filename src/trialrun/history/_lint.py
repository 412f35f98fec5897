"""`trialrun lint`: ALWAYS_PASSES evals must have earned it.

Flags each task (with `policy: ALWAYS_PASSES` written in its file) and each
`@eval_test("ALWAYS_PASSES", …)` test that has no promotion in the history: one never
recorded at all is a new eval created as ALWAYS_PASSES (start it as USUALLY_PASSES and
let `trialrun promote` move it up); one recorded but never promoted was set by hand.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trialrun.history._rewrite import read_policy
from trialrun.history._store import HistoryStore


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
    from trialrun.tasks import load_tasks

    recorded = {o.test_id for run in store.runs() for o in run.outcomes}
    promoted = {c["test_id"] for c in store.policy_changes() if c["action"] == "promote"}
    targets: list[tuple[str, int | None, str, set[str]]] = []  # source, line, id, history ids
    files = [p for raw in paths for p in (
        sorted(Path(raw).rglob("*")) if Path(raw).is_dir() else [Path(raw)])]
    for file in files:
        if file.suffix == ".py" and file.name.startswith("test"):
            for name, line in _pytest_always(file):
                ids = {t for t in recorded | promoted
                       if t.split("::")[0].endswith(file.name) and t.split("::")[-1] == name}
                targets.append((str(file), line, name, ids or {name}))
    report = load_tasks([p for p in paths if not p.endswith(".py")]) if any(
        not p.endswith(".py") for p in paths) else None
    for task in report.tasks if report else []:
        if task.source is None or task.policy != "ALWAYS_PASSES":
            continue
        if read_policy("task", str(task.source), task.task_id) != "ALWAYS_PASSES":
            continue  # the suite's default, not written in the file
        targets.append((str(task.source), None, task.task_id, {task.task_id}))
    findings = []
    for source, line, test_id, ids in targets:
        if ids & promoted:
            continue
        if ids & recorded:
            message = ("ALWAYS_PASSES with no promotion record; let `trialrun promote` set it "
                       "(or set it back to USUALLY_PASSES)")
        else:
            message = ("new eval created as ALWAYS_PASSES; start it as USUALLY_PASSES and let "
                       "`trialrun promote` move it up")
        findings.append(Finding(source, line, test_id, message))
    return findings
