"""Imports the built-in grader modules so their decorators register them.

A built-in that fails to import is a bug: the error surfaces here instead of its
grader type silently going missing.
"""

from __future__ import annotations

from trialrun.graders import (  # noqa: F401
    command,
    judge,
    output,
    pairwise,
    rubric,
    safety,
    state,
    tools,
    trajectory,
)
