"""Validate one native task mapping into a Task, collecting every issue with its field path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from trialrun.graders import GraderConfig
from trialrun.tasks._grader_items import validate_grader
from trialrun.tasks._issues import Issue, issues_from_validation
from trialrun.tasks._model import Task
from trialrun.tasks._problems import FieldPath
from trialrun.tasks._reference import meant_path, see_reference

SCHEMA_KEY = "$schema"  # editors' schema pointer; allowed at the top of any task


@dataclass
class Checked:
    """The outcome of validating one task mapping (paths are from the file's root)."""

    task: Task | None
    issues: list[Issue] = field(default_factory=list)
    graders: list[tuple[FieldPath, GraderConfig]] = field(default_factory=list)
    # where the loader's cross-checks report: task_id, fixture, setup, faults
    places: dict[str, FieldPath] = field(default_factory=dict)


def check_native(data: Any, prefix: FieldPath = ()) -> Checked:
    places = {
        "task_id": (*prefix, "task_id"),
        "fixture": (*prefix, "environment", "fixture"),
        "setup": (*prefix, "environment", "setup"),
        "faults": (*prefix, "environment", "faults"),
        "reset": (*prefix, "environment", "reset"),
    }
    if not isinstance(data, dict):
        got = type(data).__name__
        return Checked(
            None, [(prefix, f"a task must be a mapping of keys (got {got})")], [], places
        )
    data = {k: v for k, v in data.items() if k != SCHEMA_KEY}
    issues: list[Issue] = []
    graders: list[tuple[FieldPath, GraderConfig]] = []
    raw = data.get("graders")
    substitute = dict(data)
    if isinstance(raw, list):
        if not raw:
            issues.append(
                (
                    (*prefix, "graders"),
                    "no graders: a task needs at least one (e.g. {type: contains, value: ...})",
                )
            )
        for i, item in enumerate(raw):
            config, found = validate_grader(item, (*prefix, "graders", i))
            issues += found
            if config is not None:
                graders.append(((*prefix, "graders", i), config))
        # The graders were checked above; the task-level check sees a stand-in.
        substitute["graders"] = [GraderConfig(type="_checked")]
    task: Task | None = None
    try:
        task = Task.model_validate(substitute)
    except ValidationError as exc:
        issues += issues_from_validation(exc, substitute, Task, prefix)
    if issues or task is None:
        return Checked(None, _with_reference(issues, data, prefix), graders, places)
    task.graders = [config for _, config in graders]
    return Checked(task, [], graders, places)


def _with_reference(issues: list[Issue], data: Any, prefix: FieldPath) -> list[Issue]:
    """Each message ends naming the reference section of its key (for a key given at the
    wrong level, the section of the place it belongs)."""
    out: list[Issue] = []
    for path, message in issues:
        where = meant_path(path[len(prefix) :], message)
        out.append((path, f"{message} (see {see_reference(where, data)})"))
    return out
