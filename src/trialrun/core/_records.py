"""Plain records shared by agents, graders, the runner and the run folder.

Slots dataclasses, not pydantic models: they are built on the per-trial hot path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# OpenAI chat format: {"role": "user", "content": "…"}, assistant messages with
# `tool_calls`, {"role": "tool", "tool_call_id", "content"}.
Message = dict[str, Any]
# An OpenAI function spec: {"type": "function", "function": {name, description, parameters}}.
ToolSpec = dict[str, Any]


@dataclass(slots=True)
class Verdict:
    """One grader's answer: passed True/False, or None when undetermined."""

    grader: str
    passed: bool | None
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"grader": self.grader, "passed": self.passed, "details": self.details}


@dataclass(slots=True)
class ToolCallRecord:
    """One tool call the agent made, as graders and results.jsonl see it."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "ok": self.ok}
