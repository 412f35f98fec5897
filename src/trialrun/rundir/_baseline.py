"""`Baseline`: baselines/<provider>-<slug(model name)>.json, a blessed run summary.

Format "trialrun-baseline/1". Per task: the run's counts and estimators plus per-trial
means and the raw latencies (so P95 can be recomputed over any subset of tasks). Task
entries and the aggregate stay plain dicts: their keys are the file's keys (a file read
holds each entry's `metrics.latencies_s` packed, an `array("d")`; `to_json` lists it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trialrun.core import model_name, slugify
from trialrun.rundir._baseline_text import plain_entry
from trialrun.rundir._checks import RecordError

FORMAT = "trialrun-baseline/1"
KEYS = ("format", "run_id", "git_sha", "model", "provider", "spec", "date", "blessed_at", "k",
        "trialrun_version", "forced", "reason", "tasks", "aggregate", "source")


def baseline_name(provider: str, model_id: str) -> str:
    """The file name a (provider, model) is blessed under: `<provider>-<slug(model)>.json`.

    The model id is taken without its base URL (`gpt-4o@http://host/v1` → `gpt-4o`), so
    no host, port or credentials end up in a committed file name.
    """
    name = model_name(model_id)
    return f"{provider}-{slugify(name)}.json" if name else f"{provider}.json"


@dataclass(slots=True)
class Baseline:
    model: str  # the model id, without the provider
    provider: str
    tasks: list[Mapping[str, Any]] = field(default_factory=list)  # dicts, or packed (read)
    format: str = FORMAT
    run_id: str | None = None
    git_sha: str | None = None
    spec: str | None = None  # the full model spec text of the blessed run
    date: str | None = None
    blessed_at: str | None = None
    k: int | None = None
    trialrun_version: str | None = None
    forced: bool = False
    reason: str | None = None  # why it was blessed with --force
    aggregate: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] | None = None  # where a converted (Scribe) baseline came from
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.spec or f"{self.provider}:{self.model}"

    def task_map(self) -> dict[str, Mapping[str, Any]]:
        return {str(t["task_id"]): t for t in self.tasks}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in KEYS:
            value = getattr(self, key)
            if key == "reason" and not self.forced:
                continue
            if key == "source" and value is None:
                continue
            if key == "tasks":  # packed latencies (a file read) written as the file's lists
                value = [plain_entry(entry) for entry in value]
            out[key] = value
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Baseline:
        """A checked baseline; RecordError names the field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f'not a baseline (no "format": "{FORMAT}")')
        for key, kind in (("model", str), ("provider", str), ("tasks", list)):
            if not isinstance(data.get(key), kind):
                raise RecordError(f"field '{key}' missing or not a {kind.__name__}")
        for i, task in enumerate(data["tasks"]):
            if not isinstance(task, Mapping) or not isinstance(task.get("task_id"), str):
                raise RecordError(f"tasks[{i}].task_id missing or not a string")
            for key in ("n", "passed", "solved"):
                value = task.get(key)
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise RecordError(f"tasks[{i}].{key} ({task['task_id']}) must be a count ≥ 0")
        k = data.get("k")
        return cls(
            model=data["model"],
            provider=data["provider"],
            tasks=list(data["tasks"]),
            run_id=data.get("run_id"),
            git_sha=data.get("git_sha"),
            spec=data.get("spec"),
            date=data.get("date"),
            blessed_at=data.get("blessed_at"),
            k=k if isinstance(k, int) and not isinstance(k, bool) else None,
            trialrun_version=data.get("trialrun_version"),
            forced=bool(data.get("forced")),
            reason=data.get("reason"),
            aggregate=obj if isinstance(obj := data.get("aggregate"), dict) else {},
            source=data.get("source") if isinstance(data.get("source"), dict) else None,
            extra={k: v for k, v in data.items() if k not in KEYS},
        )
