"""Shared types at the bottom of the house: every package may import these, and this
package imports nothing of trialrun but `trialrun.errors`.

Chat messages, tool-call records, verdicts, model specs, the name registry behind the
`@grader`/`@tool_pack`/`@model_provider` decorators and object loading live here so
that the packages above (models, tools, graders, agents, runner, rundir) agree on them
without importing each other.
"""

from trialrun.core._model_spec import ModelSpec, is_unpinned, parse_model_spec, slugify
from trialrun.core._objects import load_object
from trialrun.core._records import Message, ToolCallRecord, ToolSpec, Verdict
from trialrun.core._registry import Registry

__all__ = [
    "Message",
    "ModelSpec",
    "Registry",
    "ToolCallRecord",
    "ToolSpec",
    "Verdict",
    "is_unpinned",
    "load_object",
    "parse_model_spec",
    "slugify",
]
