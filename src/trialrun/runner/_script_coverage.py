"""A scripted model with no turns for a task (and no `default`) answers nothing there: a
typo in the script's task id looks like a failing agent. A warning before the run names
the task and the script's ids."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from trialrun.tasks import Task


def script_coverage_warnings(models: Mapping[str, object], tasks: Sequence[Task]) -> list[str]:
    warnings: list[str] = []
    for label, model in models.items():
        covers = getattr(model, "covers", None)  # a ScriptedModel, duck-typed
        scripted = getattr(model, "task_ids", None)
        if covers is None or scripted is None:
            continue
        missing = [t.task_id for t in tasks if not covers(t.task_id)]
        for task_id in missing:
            near = difflib.get_close_matches(task_id, list(scripted), n=1)
            hint = f"; did you mean '{near[0]}'?" if near else ""
            warnings.append(
                f"{label}: the script has no turns for task '{task_id}' and no `default`, so "
                f"it answers nothing there{hint} (add `tasks: {{{task_id}: [...]}}` or "
                "`default: [...]` to the script)"
            )
    return warnings
