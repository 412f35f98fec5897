"""The recorded trial's own task, when its run names the file and it still loads: the source
of the exact safety grader configs and of the fixture's original bytes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.graders import GraderConfig
from trialrun.replay._recording import Recording
from trialrun.tasks import load_tasks


@dataclass(slots=True)
class OriginalTask:
    path: Path  # the task file
    graders: list[GraderConfig]
    fixture: dict[str, bytes] = field(default_factory=dict)  # relative posix path -> bytes
    fixture_dir: Path | None = None

    def changed_paths(self) -> set[str]:
        """Paths its graders expect the agent to touch (any path grader but fileUnchanged)."""
        return {str(p) for g in self.graders
                if g.type != "fileUnchanged" and isinstance(p := getattr(g, "path", None), str)}


def _fixture_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def find_original(rec: Recording) -> OriginalTask | None:
    """The task `rec` ran, loaded from the file its run recorded (None when the recording
    names none, or the file is gone, no longer loads or no longer holds that task)."""
    if rec.task_file is None or not rec.task_id or not rec.task_file.is_file():
        return None
    try:
        report = load_tasks([rec.task_file])
    except UserError:  # an unreadable original only means no original
        return None
    task = next((t for t in report.tasks if t.task_id == rec.task_id), None)
    if task is None:
        return None
    folder = task.fixture_path
    files = _fixture_files(folder) if folder is not None and folder.is_dir() else {}
    return OriginalTask(rec.task_file, list(task.graders), files, folder)


def grader_data(config: GraderConfig) -> dict[str, Any]:
    """A grader config as a task file writes it: its type first, then what is not default."""
    rest = config.model_dump(mode="json", exclude_defaults=True, exclude={"type"})
    return {"type": config.type, **rest}
