"""A recorded trial, from trialrun's own transcript or an OpenAI-format chat log: the user
request, each tool call (name, arguments, result, whether it failed, its turn), the answer;
from a transcript also its verdicts, its workspace diff and (when a run folder's run.json
names it) the task file it ran.

Whether a recorded call failed is not in either format; it is inferred from its result
(an error word or status at the start, a trialrun tool error prefix) and printed, so a
person can correct it in the imported task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.rundir import (
    RUN_JSON,
    ResultLine,
    RunDir,
    Transcript,
    load_transcript,
    loads_limited,
    read_json,
)

_FAILED = re.compile(
    r"^\s*(?:(?:error|failed|failure|exception|traceback|refused|denied|timeout|timed out"
    r"|unavailable|forbidden|not found)\b|(?:HTTP )?[45]\d\d\b|\{\s*\"error\")",
    re.IGNORECASE,
)


@dataclass(slots=True)
class RecordedCall:
    name: str
    arguments: dict[str, Any]
    result: str
    ok: bool
    turn: int


@dataclass(slots=True)
class Recording:
    source: str  # what it was read from, for the task's description
    prompt: str
    calls: list[RecordedCall] = field(default_factory=list)
    final_text: str = ""
    task_id: str = ""  # the recorded task's id (trialrun transcripts)
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # trialrun transcripts
    kind: str = "transcript"  # or "chat log"
    # trialrun transcripts: files the trial created, modified, deleted (None: not recorded)
    workspace_diff: dict[str, list[str]] | None = None
    task_file: Path | None = None  # the recorded task's file, as its run's run.json names it


def looks_failed(name: str, result: str) -> bool:
    """An error word or HTTP status at the start, or trialrun's `tool: message` errors."""
    if result.startswith((f"{name}: ", f"{name} failed")):
        return True
    return bool(_FAILED.search(result[:200]))


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = loads_limited(raw) if raw.strip() else {}
        except ValueError:
            return {"_raw": raw}
        return parsed if isinstance(parsed, dict) else {"_raw": raw}
    return {}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "".join(t for t in parts if isinstance(t, str))
    return ""


def from_messages(messages: list[dict[str, Any]], source: str, kind: str) -> Recording:
    """Tool calls paired with their results (by tool_call_id, else in order)."""
    prompt = next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
    if not prompt.strip():
        raise UserError(f"{source}: no user message with text; nothing to replay")
    results: dict[str, str] = {}
    unnamed: list[str] = []
    for m in messages:
        if m.get("role") == "tool":
            if isinstance(m.get("tool_call_id"), str):
                results[m["tool_call_id"]] = _text(m.get("content"))
            else:
                unnamed.append(_text(m.get("content")))
    rec = Recording(source=source, prompt=prompt, kind=kind)
    turn = 0
    for m in messages:
        if m.get("role") != "assistant":
            continue
        turn += 1
        for call in m.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                continue
            cid = call.get("id") if isinstance(call.get("id"), str) else None
            if cid is not None and cid in results:
                result = results.pop(cid)
            else:
                result = unnamed.pop(0) if unnamed else ""
            name, args = fn["name"], _arguments(fn.get("arguments"))
            ok = not looks_failed(name, result)
            rec.calls.append(RecordedCall(name, args, result, ok, turn))
        if not m.get("tool_calls"):
            rec.final_text = _text(m.get("content"))
    return rec


def from_transcript(transcript: Transcript, source: str) -> Recording:
    rec = from_messages(transcript.messages, source, "transcript")
    rec.task_id = transcript.task_id
    rec.final_text = transcript.final_text or rec.final_text
    rec.verdicts = transcript.verdicts
    rec.workspace_diff = _workspace_diff(transcript.extra.get("workspace_diff"))
    return rec


def _workspace_diff(raw: Any) -> dict[str, list[str]] | None:
    if not isinstance(raw, dict):
        return None
    return {key: [p for p in raw.get(key) or [] if isinstance(p, str) and p]
            for key in ("created", "modified", "deleted")}


def _task_file(run: RunDir, task_id: str) -> Path | None:
    """The task file run.json records for `task_id` (None when it names none or is damaged)."""
    try:
        manifest = run.manifest()
    except UserError:
        return None
    source = (manifest.task_meta().get(task_id) or {}).get("source")
    if not isinstance(source, str) or not source:
        return None
    path = Path(source)
    if path.is_absolute() or path.is_file():
        return path
    # relative to the folder the run started in: an ancestor of a task path it was given
    for given in manifest.paths:
        for folder in Path(given).parents:
            if (folder / path).is_file():
                return folder / path
    return path


def _enclosing_run(path: Path) -> RunDir | None:
    """The run folder a transcript file sits in (transcripts/<model>/<file> or beside it)."""
    for folder in list(path.resolve().parents)[:3]:
        if (folder / RUN_JSON).is_file():
            return RunDir(folder)
    return None


def read_recording(path: Path, task: str | None = None, trial: int | None = None) -> Recording:
    """A transcript file, an OpenAI-format chat log ({"messages": [...]}), or a run folder
    (with `task`, and `trial`: default the task's first failed trial)."""
    if path.is_dir():
        return _from_run(path, task, trial)
    transcript = load_transcript(path)
    if transcript is not None:
        rec = from_transcript(transcript, str(path))
        run = _enclosing_run(path)
        if run is not None and rec.task_id:
            rec.task_file = _task_file(run, rec.task_id)
        return rec
    data = read_json(path, "give a trialrun transcript or an OpenAI-format chat log")
    messages = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise UserError(
            f"{path}: not a trialrun transcript or a chat log; give a file with "
            '{"messages": [{role, content, tool_calls?}, …]}'
        )
    return from_messages(messages, str(path), "chat log")


def _from_run(path: Path, task: str | None, trial: int | None) -> Recording:
    if task is None:
        raise UserError(f"{path}: a run folder needs --task TASK_ID (and optionally --trial N)")
    run = RunDir.open(path)
    lines = [x for x in run.read().results if x.task_id == task]
    if not lines:
        raise UserError(f"{path}: no trial of task {task!r} in this run; check --task")
    chosen: ResultLine | None
    if trial is None:
        failed = [x for x in lines if x.solve is False or x.passed is False]
        chosen = (failed or lines)[0]
    else:
        chosen = next((x for x in lines if x.trial == trial), None)
        if chosen is None:
            raise UserError(f"{path}: task {task!r} has no trial {trial}; check --trial")
    rec = from_transcript(run.transcript(chosen), f"{path} ({task} #{chosen.trial})")
    rec.task_file = _task_file(run, task)
    return rec
