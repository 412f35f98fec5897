"""Failure replays: a recorded failed trial → a `failure_replays` task that reproduces it.

`import_replay(source, out)` reads trialrun's own transcript, an OpenAI-format chat log
or a run folder's trial (through `trialrun.rundir`), infers the task (prompt, fixture,
frozen tool results, graders for the failure it saw), writes it and says what it inferred.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trialrun.replay._import import ReplayTask, build_replay
from trialrun.replay._recording import RecordedCall, Recording, looks_failed, read_recording
from trialrun.replay._write import render, write_replay


@dataclass(slots=True)
class ImportedReplay:
    path: Path  # the task file written
    fixture_dir: Path | None  # its fixture folder (None: no file was read)
    replay: ReplayTask


def import_replay(
    source: Path | str,
    out: Path | str | None = None,
    *,
    task: str | None = None,
    trial: int | None = None,
    task_id: str | None = None,
    expect: list[str] | None = None,
    force: bool = False,
) -> ImportedReplay:
    """Import one recorded trial; `out` defaults to ./<task_id>.yaml."""
    path = Path(source)
    recording = read_recording(path, task, trial)
    replay = build_replay(recording, task_id=task_id, expect=expect, fallback_id=path.stem)
    target = Path(out) if out is not None else Path(f"{replay.task['task_id']}.yaml")
    fixture_dir = write_replay(replay, target, str(source), force=force)
    return ImportedReplay(target, fixture_dir if replay.fixture else None, replay)


__all__ = [
    "ImportedReplay",
    "RecordedCall",
    "Recording",
    "ReplayTask",
    "build_replay",
    "import_replay",
    "looks_failed",
    "read_recording",
    "render",
    "write_replay",
]
