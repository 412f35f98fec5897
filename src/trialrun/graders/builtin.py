"""Imports the built-in grader modules so their decorators register them."""

from __future__ import annotations

import importlib
import importlib.util

_BUILTIN = (
    "trialrun.graders.tools",
    "trialrun.graders.output",
    "trialrun.graders.state",
    "trialrun.graders.command",
    "trialrun.graders.judge",
    "trialrun.graders.rubric",
    "trialrun.graders.pairwise",
)

for _name in _BUILTIN:
    if importlib.util.find_spec(_name) is not None:
        importlib.import_module(_name)
