"""Helpers for the grader tests: build TrialViews directly and grade one config."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from trialrun.graders import ToolCallRecord, TrialView, Verdict, parse_grader, run_grader


def make_trial(
    *,
    final_text: str = "",
    calls: list[tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], bool]] | None = None,
    workspace: Path | None = None,
    fixture_dir: Path | None = None,
) -> TrialView:
    records = [
        ToolCallRecord(c[0], c[1], c[2] if len(c) > 2 else True)  # type: ignore[misc]
        for c in calls or []
    ]
    return TrialView(
        task_id="graders-demo",
        user_message="do it",
        final_text=final_text,
        tool_calls=records,
        messages=[],
        workspace=workspace,
        fixture_dir=fixture_dir,
    )


def grade(config: dict[str, Any], trial: TrialView) -> Verdict:
    return asyncio.run(run_grader(parse_grader(config), trial))
