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
    """(run.json or {}, results lines); a torn last line is dropped."""
    run_dir = Path(run_dir)
    results = run_dir / "results.jsonl"
    if not results.is_file():
        raise UserError(f"{run_dir}: not a run directory (no results.jsonl); pass DIR/<run-id>")
    manifest: dict[str, Any] = {}
    if (run_dir / "run.json").is_file():
        try:
            manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        except ValueError as exc:
            raise UserError(f"{run_dir / 'run.json'}: invalid JSON: {exc}") from None
    lines: list[dict[str, Any]] = []
    raw = results.read_text(encoding="utf-8").splitlines()
    for number, text in enumerate(raw, 1):
        if not text.strip():
            continue
        try:
            lines.append(json.loads(text))
        except ValueError:
            if number == len(raw):
                continue  # torn last line of an interrupted run
            raise UserError(f"{results}:{number}: invalid JSON line; fix or remove it") from None
    return manifest, lines


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
        return json.loads((Path(run_dir) / rel).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def response_of(run_dir: Path, line: dict[str, Any]) -> str:
    if isinstance(line.get("final_text"), str):
        return line["final_text"]
    return str(load_transcript(run_dir, line).get("final_text") or "")


def user_message_of(run_dir: Path, line: dict[str, Any]) -> str:
    if isinstance(line.get("user_message"), str):
        return line["user_message"]
    for message in load_transcript(run_dir, line).get("messages") or []:
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
