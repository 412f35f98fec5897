"""Graders: trial → verdict. One module per kind; registered with `@grader`."""

from trialrun.graders._grade import (
    SAFETY_GRADER_TYPES,
    GradedTask,
    TrialGrade,
    grade_trial,
    implicit_budget,
)
from trialrun.graders._types import (
    GRADERS,
    GraderConfig,
    GraderKind,
    ToolCallRecord,
    TrialView,
    Verdict,
    grade_all,
    grader,
    parse_grader,
    run_grader,
    solve_from,
)
from trialrun.graders._values import regex_value_problem
from trialrun.graders.trajectory import trajectory_figures

__all__ = [
    "SAFETY_GRADER_TYPES",
    "GradedTask",
    "TrialGrade",
    "grade_trial",
    "implicit_budget",
    "GRADERS",
    "GraderConfig",
    "GraderKind",
    "ToolCallRecord",
    "TrialView",
    "Verdict",
    "grade_all",
    "grader",
    "parse_grader",
    "regex_value_problem",
    "run_grader",
    "solve_from",
    "trajectory_figures",
]
