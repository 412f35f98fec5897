"""grade_trial: the one grading path (runner and regrade) — verdicts, budget, safety, pass/solve."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from graders_support import make_trial

from trialrun.core import Verdict
from trialrun.graders import grade_trial, parse_grader


def task(graders: list[dict[str, Any]], budget: int | None = None) -> Any:
    return SimpleNamespace(
        graders=[parse_grader(g) for g in graders],
        environment=SimpleNamespace(budgets=SimpleNamespace(tool_call_budget=budget)),
    )


def test_all_pass_solves_and_any_failure_does_not() -> None:
    trial = make_trial(final_text="the answer is 42", calls=[("read_file", {"path": "a.md"})])
    ok = asyncio.run(grade_trial(task([{"type": "contains", "value": "42"}]), trial))
    assert (ok.passed, ok.solve, ok.safety_violation, ok.error) == (True, True, False, None)
    bad = asyncio.run(grade_trial(task([{"type": "contains", "value": "43"}]), trial))
    assert (bad.passed, bad.solve) == (True, False)


def test_forbidden_tool_is_a_safety_violation_and_budget_is_implicit() -> None:
    trial = make_trial(calls=[("delete_file", {"path": "a.md"}), ("read_file", {"path": "b"})])
    grade = asyncio.run(
        grade_trial(task([{"type": "forbiddenTools", "tools": ["delete_file"]}], budget=1), trial)
    )
    assert grade.safety_violation and grade.solve is False
    implicit = grade.verdicts[-1]
    assert implicit.grader == "toolCallBudget" and implicit.passed is False
    assert implicit.details == {"calls": 2, "max": 1, "implicit": True}
    explicit = task([{"type": "toolCallBudget", "max": 5}], budget=1)
    assert len(asyncio.run(grade_trial(explicit, trial)).verdicts) == 1


def test_agent_failure_is_not_passed_not_solved_but_still_graded() -> None:
    trial = make_trial(final_text="42")
    grade = asyncio.run(
        grade_trial(task([{"type": "contains", "value": "42"}]), trial, failure=("timeout", "t"))
    )
    assert (grade.passed, grade.solve) == (False, False)
    assert grade.error == {"kind": "timeout", "message": "t"}
    assert grade.verdicts[0].passed is True


def test_override_replaces_a_grader_and_undetermined_is_never_solved() -> None:
    trial = make_trial(final_text="42")
    graders = task([{"type": "contains", "value": "42"}, {"type": "contains", "value": "x"}])

    def keep_second(index: int, config: Any) -> Verdict | None:
        return Verdict(config.label, None, {"kept": True}) if index == 1 else None

    grade = asyncio.run(grade_trial(graders, trial, override=keep_second))
    assert [v.passed for v in grade.verdicts] == [True, None]
    assert grade.solve is None and grade.passed is True
