"""Reading one transcript file given by path (outside a run's results lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.rundir._json import read_json
from trialrun.rundir._transcript import Transcript


def is_transcript(data: Any) -> bool:
    """Whether parsed JSON has the shape of a trialrun transcript."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("messages"), list)
        and "task_id" in data
        and ("tool_results" in data or "turns" in data)
    )


def load_transcript(path: Path | str) -> Transcript | None:
    """The trialrun transcript at `path`, or None when the file is JSON of another shape
    (an unreadable file is a UserError naming it)."""
    data = read_json(Path(path), "give a transcript file (transcripts/<model>/<task>-<n>.json)")
    return Transcript.from_json(data) if is_transcript(data) else None
