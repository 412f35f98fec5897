"""Text diffs of the files a trial modified, when the run kept its workspaces.

The after side is the kept workspace (`run --keep-artifacts`), read without following
any symlink: a link the agent left is shown as a link with its target text, never read.
The before side is rebuilt the way the runner built it: a fresh workspace from the task
file run.json names (one per task, made once and removed by `close`). A task file that is
gone or no longer loads gives no text diff (the created/modified/deleted lists still show).
"""

from __future__ import annotations

import difflib
import hashlib
import tempfile
from pathlib import Path
from typing import Any

from trialrun.core import link_beneath, open_beneath
from trialrun.errors import UserError
from trialrun.rundir import Manifest
from trialrun.sandbox import Workspace, remove_tree
from trialrun.tasks import load_tasks

MAX_FILE_BYTES = 256 * 1024
MAX_DIFF_LINES = 400


def _text(root: Path, rel: str) -> str | None:
    """A small UTF-8 file's text; None when missing, big, binary or not a regular file.
    Reached without following any symlink: a link an agent left is never read through."""
    try:
        with open_beneath(root, rel, limit=MAX_FILE_BYTES) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError, UserError):
        return None
    if len(data) > MAX_FILE_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class BeforeFiles:
    """The files of a task's workspace before its agent ran, rebuilt on demand."""

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest
        self._tasks: dict[str, Any] | None = None
        self._dirs: dict[str, Path | None] = {}
        self._tmp: Path | None = None
        self.note: str | None = None

    def _load(self) -> dict[str, Any]:
        if self._tasks is None:
            self._tasks = {}
            paths = []
            for entry in self._manifest.task_files:
                path = Path(str(entry.get("path")))
                if not path.is_file():
                    self.note = f"task file {path} not found: no before side for text diffs"
                    continue
                digest = entry.get("sha256")
                if digest and hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                    self.note = f"task file {path} changed since the run"
                    continue
                paths.append(path)
            if paths:
                links = self._manifest.extra.get("allow_external_links") is True
                try:
                    loaded = load_tasks(paths, allow_external_links=links)
                except UserError as exc:
                    self.note = f"task files do not load ({exc}): no text diffs"
                    return self._tasks
                self._tasks = {task.task_id: task for task in loaded.tasks}
        return self._tasks

    def folder(self, task_id: str) -> Path | None:
        """The rebuilt workspace of `task_id` (None when its task cannot be loaded)."""
        if task_id not in self._dirs:
            task = self._load().get(task_id)
            made: Path | None = None
            if task is not None:
                try:
                    if self._tmp is None:
                        self._tmp = Path(tempfile.mkdtemp(prefix="trialrun-before-"))
                    made = Workspace.create(task, parent=self._tmp).path
                except Exception:  # no before side is a note, not a failure
                    made = None
            self._dirs[task_id] = made
        return self._dirs[task_id]

    def diffs(self, task_id: str, kept: Path, modified: list[str]) -> dict[str, str]:
        """path → unified diff (before → after) for each modified text file."""
        before = self.folder(task_id)
        out: dict[str, str] = {}
        if before is None:
            return out
        for rel in modified:
            target = link_beneath(kept, rel)
            if target is not None:  # shown as a link, its target text only: never read
                out[rel] = f"{rel}: now a symlink to {target} (not followed)"
                continue
            old, new = _text(before, rel), _text(kept, rel)
            if old is None or new is None:
                continue
            lines = list(difflib.unified_diff(
                old.splitlines(), new.splitlines(), f"a/{rel}", f"b/{rel}", lineterm=""
            ))
            if len(lines) > MAX_DIFF_LINES:
                lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more lines"]
            out[rel] = "\n".join(lines)
        return out

    def close(self) -> None:
        if self._tmp is not None:
            remove_tree(self._tmp)
            self._tmp = None
            self._dirs.clear()
