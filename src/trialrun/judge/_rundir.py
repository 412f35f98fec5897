"""Reading a run directory for the judge tools: run.json, results.jsonl, transcripts."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from trialrun.errors import UserError

JUDGE_KINDS = ("judge", "llmRubric", "pairwise")


def read_run(run_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(run.json or {}, results lines); a torn last line is dropped.

    The lines are checked as `trialrun.tracking` checks them, so a damaged file is one
    UserError naming the file and line, never a crash further on.
    """
    from trialrun.tracking._run_data import read_results

    run_dir = Path(run_dir)
    results = run_dir / "results.jsonl"
    if not results.is_file():
        raise UserError(f"{run_dir}: not a run directory (no results.jsonl); pass DIR/<run-id>")
    manifest: Any = {}
    if (run_dir / "run.json").is_file():
        try:
            manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        except (ValueError, OSError) as exc:
            raise UserError(
                f"{run_dir / 'run.json'}: invalid JSON ({exc}); restore the file or remove it"
            ) from None
        if not isinstance(manifest, dict):
            raise UserError(f"{run_dir / 'run.json'}: expected a JSON object; restore the file")
    return manifest, read_results(results)


def verdict_kind(verdict: dict[str, Any]) -> str | None:
    """The grader type of a stored verdict: details.type, else the label if it is a type."""
    details = verdict.get("details") or {}
    kind = details.get("type") if isinstance(details, dict) else None
    if kind:
        return str(kind)
    grader = verdict.get("grader")
    return grader if grader in JUDGE_KINDS else None


def load_transcript(run_dir: Path, line: dict[str, Any]) -> dict[str, Any]:
    rel = line.get("transcript")
    if not rel:
        return {}
    try:
        data = json.loads((Path(run_dir) / str(rel)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def response_of(run_dir: Path, line: dict[str, Any]) -> str:
    if isinstance(line.get("final_text"), str):
        return line["final_text"]
    return str(load_transcript(run_dir, line).get("final_text") or "")


def user_message_of(run_dir: Path, line: dict[str, Any]) -> str:
    if isinstance(line.get("user_message"), str):
        return line["user_message"]
    messages = load_transcript(run_dir, line).get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return ""


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
