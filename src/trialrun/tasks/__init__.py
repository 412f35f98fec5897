"""Tasks: the model, suite defaults, and loaders (native YAML/JSON/TOML and Scribe JSON)."""

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
]
