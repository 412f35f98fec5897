"""What the analysis tools read of a stored trial: its verdict kinds, answer and request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.rundir import Manifest, ResultLine, RunDir, RunDirLimits

JUDGE_KINDS = ("judge", "llmRubric", "pairwise")


def open_run(
    run_dir: Path | str, limits: RunDirLimits | None = None
) -> tuple[RunDir, Manifest, list[ResultLine]]:
    """The run folder, its manifest and its checked results lines (`RunDir.read`), read
    within `limits` (the project's `[rundir]`; None: the defaults)."""
    run = RunDir.open(run_dir, limits=limits)
    contents = run.read()
    return run, contents.manifest, contents.results


def verdict_kind(verdict: dict[str, Any]) -> str | None:
    """The grader type of a stored verdict: details.type, else the label if it is a type."""
    details = verdict.get("details") or {}
    kind = details.get("type") if isinstance(details, dict) else None
    if kind:
        return str(kind)
    grader = verdict.get("grader")
    return grader if grader in JUDGE_KINDS else None


def response_of(run: RunDir, line: ResultLine) -> str:
    """The agent's final answer: from the line, else from its transcript."""
    if line.final_text is not None:
        return line.final_text
    return run.transcript_or_empty(line).final_text


def user_message_of(run: RunDir, line: ResultLine) -> str:
    """The user's request: from the line, else the first user message of the transcript."""
    message = line.extra.get("user_message")
    if isinstance(message, str):
        return message
    return run.transcript_or_empty(line).user_message
