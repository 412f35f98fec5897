"""Imports the built-in providers so their decorators register them.

Each provider module must import its heavy SDK lazily (inside the factory or model),
so importing this module stays cheap.
"""

from __future__ import annotations

import importlib
import importlib.util

_BUILTIN = (
    "trialrun.models.scripted",
    "trialrun.models.local",
    "trialrun.models.openai_compat",
    "trialrun.models.ollama",
    "trialrun.models.gemini",
    "trialrun.models.anthropic",
)

for _name in _BUILTIN:
    if importlib.util.find_spec(_name) is not None:
        importlib.import_module(_name)
