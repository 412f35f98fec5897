"""Tasks: the model, suite defaults, and loaders (native YAML/JSON/TOML and Scribe JSON)."""

from trialrun.tasks._families import FAMILIES
from trialrun.tasks._grader_items import tool_names_in
from trialrun.tasks._limits import (
    MAX_COST_USD,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_K,
    MAX_LIST_ITEMS,
    MAX_NODES,
    MAX_SECONDS,
    MAX_TOKENS,
    MAX_TOOL_CALLS,
    MAX_TURNS,
    check_k_option,
)
from trialrun.tasks._loader import load_tasks, report_problems_and_exit
from trialrun.tasks._model import (
    SANDBOXES,
    Budgets,
    ChatTurn,
    Environment,
    Fault,
    Gates,
    Inputs,
    Reset,
    SetupFile,
    SimulatedUser,
    Task,
    Trials,
)
from trialrun.tasks._problems import Problem
from trialrun.tasks._report import LoadReport
from trialrun.tasks._schema import task_json_schema
from trialrun.tasks._suites import SUITE_DEFAULTS, SuiteDefaults

__all__ = [
    "FAMILIES",
    "MAX_COST_USD",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_K",
    "MAX_LIST_ITEMS",
    "MAX_NODES",
    "MAX_SECONDS",
    "MAX_TOKENS",
    "MAX_TOOL_CALLS",
    "MAX_TURNS",
    "SANDBOXES",
    "SUITE_DEFAULTS",
    "Reset",
    "check_k_option",
    "Budgets",
    "ChatTurn",
    "Environment",
    "Fault",
    "Gates",
    "Inputs",
    "SimulatedUser",
    "SetupFile",
    "Task",
    "Trials",
    "SuiteDefaults",
    "LoadReport",
    "Problem",
    "load_tasks",
    "report_problems_and_exit",
    "task_json_schema",
    "tool_names_in",
]
