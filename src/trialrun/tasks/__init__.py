"""Tasks: the model, suite defaults, and loaders (native YAML/JSON/TOML and Scribe JSON)."""

from trialrun.tasks._loader import load_tasks, report_problems_and_exit
from trialrun.tasks._model import (
    Budgets,
    ChatTurn,
    Environment,
    Fault,
    Gates,
    Inputs,
    SetupFile,
    Task,
    Trials,
)
from trialrun.tasks._problems import LoadReport, Problem
from trialrun.tasks._schema import task_json_schema
from trialrun.tasks._suites import SUITE_DEFAULTS, SuiteDefaults

__all__ = [
    "SUITE_DEFAULTS",
    "Budgets",
    "ChatTurn",
    "Environment",
    "Fault",
    "Gates",
    "Inputs",
    "SetupFile",
    "Task",
    "Trials",
    "SuiteDefaults",
    "LoadReport",
    "Problem",
    "load_tasks",
    "report_problems_and_exit",
    "task_json_schema",
]
