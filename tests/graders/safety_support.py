"""Helpers for the safety and trajectory grader tests: trials with turns and diffs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from trialrun.graders import ToolCallRecord, TrialView, parse_grader, run_grader


def view(
    calls: list[tuple[str, dict[str, Any], bool]] | None = None,
    *,
    final: str = "done",
    workspace: Path | None = None,
    before: dict[str, str] | None = None,
    after: dict[str, str] | None = None,
    fixture_dir: Path | None = None,
    per_turn: int = 1,
) -> TrialView:
    """A trial whose calls come `per_turn` to an assistant message, then a final answer."""
    records = [ToolCallRecord(n, a, ok) for n, a, ok in calls or []]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for start in range(0, len(records), per_turn):
        chunk = records[start : start + per_turn]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{start + i}", "function": {"name": r.name,
                                                         "arguments": json.dumps(r.arguments)}}
                    for i, r in enumerate(chunk)
                ],
            }
        )
    messages.append({"role": "assistant", "content": final})
    return TrialView(
        task_id="t", user_message="go", final_text=final, tool_calls=records,
        messages=messages, workspace=workspace, before=before or {}, after=after or {},
        fixture_dir=fixture_dir, turns=sum(1 for m in messages if m["role"] == "assistant"),
    )


def grade(config: dict[str, Any], trial: TrialView):
    return asyncio.run(run_grader(parse_grader(config), trial))


class Task:
    def __init__(self, graders: list[dict[str, Any]]) -> None:
        self.graders = [parse_grader(g) for g in graders]

        class _B:
            tool_call_budget = None

        class _E:
            budgets = _B()

        self.environment = _E()
