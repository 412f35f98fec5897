"""`Manifest`: run.json, the run's options serialised (what `--resume` replays).

`from_json` refuses a damaged manifest, naming the key: every command reads run.json
the same way (resume, summarize, compare, gates, reports, regrade), and none guesses.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from trialrun.core import MASK
from trialrun.rundir._checks import RecordError, is_pos_int, shown

FILTER_KEYS = ("task", "suite", "tier", "tag")
# run.json keys in file order; unknown keys are kept in `extra`
KEYS = (
    "run_id",
    "started_at",
    "argv",
    "task_files",
    "models",
    "k",
    "git_sha",
    "git_branch",
    "trialrun_version",
    "python_version",
    "tasks",
    "paths",
    "filters",
    "judge",
    "agent",
    "agent_cmd",
    "keep_artifacts",
)
# keys newer than the first run.json format, written only when set (an older run.json
# reads and writes back byte for byte)
OPTIONAL_KEYS = ("git_branch",)


@dataclass(slots=True)
class Manifest:
    run_id: str | None = None
    started_at: str | None = None
    argv: list[str] = field(default_factory=list)
    task_files: list[dict[str, Any]] = field(default_factory=list)  # [{path, sha256}]
    models: list[str] = field(default_factory=list)
    k: int | None = None  # the -k override; None: each task's own k
    git_sha: str | None = None
    # the checkout's branch (a detached CI checkout: its CI service's); None outside git
    git_branch: str | None = None
    trialrun_version: str | None = None
    python_version: str | None = None
    # one entry per task: task_id, suite, tier, tags, policy, k (effective), metric, gates, source
    tasks: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # the task paths given, resolved
    filters: dict[str, list[str]] = field(default_factory=dict)
    judge: str | None = None
    agent: str | None = None
    agent_cmd: str | None = None
    keep_artifacts: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def task_meta(self) -> dict[str, dict[str, Any]]:
        """task_id → its run.json entry."""
        return {str(t["task_id"]): t for t in self.tasks}

    def model_spec(self, label: str) -> str | None:
        """The spec to run model `label` with again: `label@URL` when the run recorded a
        base URL for it (`extra.endpoints`), else the label itself; None when its URL
        held credentials, which run.json does not keep."""
        endpoints = self.extra.get("endpoints")
        entry = endpoints.get(label) if isinstance(endpoints, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            return label
        if entry.get("credentials") or MASK in label:
            return None
        return f"{label}@{entry['url']}"

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in KEYS
               if key not in OPTIONAL_KEYS or getattr(self, key) is not None}
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Manifest:
        """A checked manifest; RecordError names the first wrong key."""
        if not isinstance(data, dict):
            raise RecordError(f"expected a JSON object (got {type(data).__name__})")
        problem = _problem(data)
        if problem is not None:
            raise RecordError(problem)
        return cls(
            run_id=data.get("run_id"),
            started_at=_str(data.get("started_at")),
            argv=[str(a) for a in data.get("argv") or []],
            task_files=list(data.get("task_files") or []),
            models=list(data.get("models") or []),
            k=data.get("k"),
            git_sha=_str(data.get("git_sha")),
            git_branch=_str(data.get("git_branch")),
            trialrun_version=_str(data.get("trialrun_version")),
            python_version=_str(data.get("python_version")),
            tasks=_shared_strings(list(data.get("tasks") or [])),
            paths=[str(p) for p in data.get("paths") or []],
            filters={k: list(v) for k, v in (data.get("filters") or {}).items()},
            judge=data.get("judge"),
            agent=data.get("agent"),
            agent_cmd=data.get("agent_cmd"),
            keep_artifacts=bool(data.get("keep_artifacts")),
            extra={k: v for k, v in data.items() if k not in KEYS},
        )


def _shared_strings(tasks: list[Any]) -> list[Any]:
    """run.json's task entries with their text values (suite, tier, tags, policy, metric)
    interned: a 10,000-task run holds one "golden", not one per task."""
    for entry in tasks:
        if not isinstance(entry, dict):
            continue
        for key, value in entry.items():
            if isinstance(value, str):
                entry[key] = sys.intern(value)
            elif isinstance(value, list):
                entry[key] = [sys.intern(v) if isinstance(v, str) else v for v in value]
    return tasks


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _problem(data: dict[str, Any]) -> str | None:
    """Why run.json cannot drive a summary or a resume (the first reason), or None."""
    if "run_id" in data and not isinstance(data["run_id"], (str, type(None))):
        return "run_id must be a string"
    models = data.get("models")
    if models is not None and (
        not isinstance(models, list) or not all(isinstance(m, str) and m for m in models)
    ):
        return "models must be a list of model specs (strings)"
    if data.get("k") is not None and not is_pos_int(data["k"]):
        return f"k must be an integer >= 1 or null (got {shown(data['k'])})"
    tasks = data.get("tasks")
    if tasks is not None and not isinstance(tasks, list):
        return "tasks must be a list"
    for i, task in enumerate(tasks or []):
        problem = _task_problem(task)
        if problem is not None:
            return f"tasks[{i}]{problem}"
    for key in ("paths", "task_files", "argv"):
        if data.get(key) is not None and not isinstance(data[key], list):
            return f"{key} must be a list"
    for i, entry in enumerate(data.get("task_files") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            return f"task_files[{i}] must be an object {{path, sha256}}"
    filters = data.get("filters")
    if filters is not None and (
        not isinstance(filters, dict)
        or set(filters) - set(FILTER_KEYS)
        or not all(isinstance(v, list) for v in filters.values())
    ):
        return "filters must be an object of lists (task, suite, tier, tag)"
    for key in ("judge", "agent", "agent_cmd"):
        if data.get(key) is not None and not isinstance(data[key], str):
            return f"{key} must be a string or null"
    return None


def _task_problem(task: Any) -> str | None:
    if not isinstance(task, dict) or not isinstance(task.get("task_id"), str):
        return " must be an object with a task_id string"
    if "k" in task and not is_pos_int(task["k"]):
        return f".k must be an integer >= 1 (got {shown(task['k'])})"
    for key in ("suite", "tier", "policy", "metric"):
        if task.get(key) is not None and not isinstance(task[key], str):
            return f".{key} must be a string"
    if task.get("tags") is not None and not isinstance(task["tags"], list):
        return ".tags must be a list"
    return None
