"""Every time limit in a task is finite and bounded: a grader's `timeout_s` (a command's)
may not exceed its task's `environment.budgets.timeout_s` (both are at most a day, by
their own schemas), so no grader outlives the budget its task set."""

from __future__ import annotations

from trialrun.graders import GraderConfig
from trialrun.tasks._issues import Issue
from trialrun.tasks._model import Task
from trialrun.tasks._problems import FieldPath


def grader_timeout_issues(task: Task, graders: list[tuple[FieldPath, GraderConfig]]) -> list[Issue]:
    """One issue per grader whose own `timeout_s` is longer than its task's."""
    task_limit = task.environment.budgets.timeout_s
    if task_limit is None:
        return []
    issues: list[Issue] = []
    for path, config in graders:
        limit = getattr(config, "timeout_s", None)
        explicit = "timeout_s" in config.model_fields_set
        if explicit and isinstance(limit, float | int) and limit > task_limit:
            issues.append(
                (
                    (*path, "timeout_s"),
                    f"{limit:g}s is longer than the task's environment.budgets.timeout_s "
                    f"({task_limit:g}s); a grader runs within its task's time limit: lower "
                    "it or raise the task's",
                )
            )
    return issues
