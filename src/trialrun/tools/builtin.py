"""Imports the built-in tool packs so their decorators register them."""

from __future__ import annotations

import importlib
import importlib.util

for _name in ("trialrun.tools.vault", "trialrun.tools.python_functions", "trialrun.tools.mcp"):
    if importlib.util.find_spec(_name) is not None:
        importlib.import_module(_name)
