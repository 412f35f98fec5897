"""`Manifest`: run.json, the run's options serialised (what `--resume` replays).

One parser, two policies: `from_json` refuses a damaged manifest (resume and summarize
must not guess), `from_json(..., lenient=True)` drops wrongly typed values so reports,
comparisons and gates over an old or hand-edited run still use what is usable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


@dataclass(slots=True)
class Manifest:
    run_id: str | None = None
    started_at: str | None = None
    argv: list[str] = field(default_factory=list)
    task_files: list[dict[str, Any]] = field(default_factory=list)  # [{path, sha256}]
    models: list[str] = field(default_factory=list)
    k: int | None = None  # the -k override; None: each task's own k
    git_sha: str | None = None
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

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in KEYS}
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any, *, lenient: bool = False) -> Manifest:
        """A checked manifest; RecordError names the key (lenient: bad values dropped)."""
        if not isinstance(data, dict):
            raise RecordError(f"expected a JSON object (got {type(data).__name__})")
        clean = dict(data)
        for key, problem in _problems(data):
            if not lenient:
                raise RecordError(problem)
            if key != "tasks[]":
                clean.pop(key, None)
        tasks = [_clean_task(t) if lenient else t for t in clean.get("tasks") or []]
        tasks = [t for t in tasks if isinstance(t, dict) and isinstance(t.get("task_id"), str)]
        return cls(
            run_id=clean.get("run_id"),
            started_at=_str(clean.get("started_at")),
            argv=[str(a) for a in clean.get("argv") or []],
            task_files=[e for e in clean.get("task_files") or [] if isinstance(e, dict)],
            models=list(clean.get("models") or []),
            k=clean.get("k"),
            git_sha=_str(clean.get("git_sha")),
            trialrun_version=_str(clean.get("trialrun_version")),
            python_version=_str(clean.get("python_version")),
            tasks=tasks,
            paths=[str(p) for p in clean.get("paths") or []],
            filters={k: list(v) for k, v in (clean.get("filters") or {}).items()},
            judge=clean.get("judge"),
            agent=clean.get("agent"),
            agent_cmd=clean.get("agent_cmd"),
            keep_artifacts=bool(clean.get("keep_artifacts")),
            extra={k: v for k, v in data.items() if k not in KEYS},
        )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, why) for every run-level key that cannot drive a summary or a resume."""
    out: list[tuple[str, str]] = []
    if "run_id" in data and not isinstance(data["run_id"], (str, type(None))):
        out.append(("run_id", "run_id must be a string"))
    models = data.get("models")
    if models is not None and (
        not isinstance(models, list) or not all(isinstance(m, str) and m for m in models)
    ):
        out.append(("models", "models must be a list of model specs (strings)"))
    if data.get("k") is not None and not is_pos_int(data["k"]):
        out.append(("k", f"k must be an integer >= 1 or null (got {shown(data['k'])})"))
    tasks = data.get("tasks")
    if tasks is not None and not isinstance(tasks, list):
        out.append(("tasks", "tasks must be a list"))
    for i, task in enumerate(tasks if isinstance(tasks, list) else []):
        problem = _task_problem(task)
        if problem is not None:
            out.append(("tasks[]", f"tasks[{i}]{problem}"))  # lenient: cleaned per task
            break
    for key in ("paths", "task_files", "argv"):
        if data.get(key) is not None and not isinstance(data[key], list):
            out.append((key, f"{key} must be a list"))
    for i, entry in enumerate(data.get("task_files") or [] if isinstance(
            data.get("task_files"), list) else []):
        if not isinstance(entry, dict):
            out.append(("task_files", f"task_files[{i}] must be an object {{path, sha256}}"))
            break
    filters = data.get("filters")
    if filters is not None and (
        not isinstance(filters, dict)
        or set(filters) - set(FILTER_KEYS)
        or not all(isinstance(v, list) for v in filters.values())
    ):
        out.append(("filters", "filters must be an object of lists (task, suite, tier, tag)"))
    for key in ("judge", "agent", "agent_cmd"):
        if data.get(key) is not None and not isinstance(data[key], str):
            out.append((key, f"{key} must be a string or null"))
    return out


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


def _clean_task(task: Any) -> Any:
    """A task entry without wrongly typed values (they fall back to the suite defaults)."""
    if not isinstance(task, dict):
        return task
    out = dict(task)
    if not is_pos_int(out.get("k")):
        out.pop("k", None)
    for key in ("tier", "suite", "policy", "metric"):
        if not isinstance(out.get(key), str):
            out.pop(key, None)
    if not isinstance(out.get("gates"), (dict, list)):
        out.pop("gates", None)
    if not isinstance(out.get("tags"), list):
        out.pop("tags", None)
    return out
