"""A task's starting workspace held in memory, so each trial's copy is a few writes.

`Workspace.create` walks the fixture folder and copies file by file (stat, open, copy,
copy the mode and times) for every trial. A `WorkspaceImage` is made once per task by
doing exactly that once, into a scratch folder, and reading the result back: its folders,
and its files' bytes, modes and modification times. `image.create(parent)` then writes the
same tree with one `mkdir` per folder and `open`/`write`/`close` per file, and hands the
new workspace its "before" snapshot, already hashed. The image is what `Workspace.create`
makes, not a second reading of the task: one copy rule, two speeds.

Large fixtures are not imaged (`capture` returns None past `max_bytes`): the per-trial
copy is then the plain one.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.errors import InfraError
from trialrun.sandbox._pool import IDLE_BYTES, IdleBudget, PooledWorkspace, WorkspacePool
from trialrun.sandbox._spec import WorkspaceSpec
from trialrun.sandbox._workspace import Workspace, workspace_prefix

MAX_IMAGE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class _File:
    rel: str
    data: bytes
    mode: int
    times_ns: tuple[int, int]


@dataclass(frozen=True, slots=True)
class WorkspaceImage:
    """The folders and files a task's fresh workspace holds, and their snapshot."""

    folders: tuple[str, ...]
    files: tuple[_File, ...]
    snapshot: dict[str, str]

    @property
    def size(self) -> int:
        return sum(len(f.data) for f in self.files)

    def paths(self) -> list[str]:
        """Every folder and file the image writes, relative to the workspace."""
        return [*self.folders, *(f.rel for f in self.files)]

    def data_by_path(self) -> dict[str, bytes]:
        return {f.rel: f.data for f in self.files}

    @classmethod
    def capture(
        cls, task: WorkspaceSpec, scratch: Path | None = None, max_bytes: int = MAX_IMAGE_BYTES
    ) -> WorkspaceImage | None:
        """Build the task's workspace once and keep it; None when it is larger than
        `max_bytes` or holds something other than folders and regular files.
        Raises `InfraError` as `Workspace.create` does (the trial reports it)."""
        ws = Workspace.create(task, parent=scratch)
        try:
            return _read_tree(ws.path, max_bytes)
        finally:
            ws.remove()

    def create(self, parent: Path, prefix: str) -> Workspace:
        """A fresh workspace under `parent` (an absolute, resolved folder; made if
        missing), its `initial` snapshot set. Failures raise `InfraError`, leaving
        nothing behind."""
        try:
            try:
                path = tempfile.mkdtemp(prefix=prefix, dir=parent)
            except FileNotFoundError:
                os.makedirs(parent, exist_ok=True)
                path = tempfile.mkdtemp(prefix=prefix, dir=parent)
        except OSError as exc:
            raise InfraError(f"cannot create a workspace under {parent}: {exc}") from exc
        ws = Workspace(Path(path))
        try:
            for rel in self.folders:
                os.mkdir(os.path.join(path, rel))
            for f in self.files:
                fd = os.open(os.path.join(path, f.rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                             0o600)
                try:
                    view = memoryview(f.data)
                    while view:
                        view = view[os.write(fd, view):]
                    os.fchmod(fd, f.mode)
                    os.utime(fd, ns=f.times_ns)
                finally:
                    os.close(fd)
        except OSError as exc:
            ws.remove()
            raise InfraError(f"cannot build a workspace under {parent}: {exc}") from exc
        ws.initial = dict(self.snapshot)
        return ws


def _read_tree(root: Path, max_bytes: int) -> WorkspaceImage | None:
    folders: list[str] = []
    files: list[_File] = []
    total = 0
    stack = [(os.fspath(root), "")]
    while stack:
        folder, rel_folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            rel = rel_folder + entry.name
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                folders.append(rel)
                stack.append((entry.path, rel + "/"))
            elif stat.S_ISREG(st.st_mode):
                total += st.st_size
                if total > max_bytes:
                    return None
                with open(entry.path, "rb") as fh:
                    data = fh.read()
                files.append(_File(rel, data, stat.S_IMODE(st.st_mode),
                                   (st.st_atime_ns, st.st_mtime_ns)))
            else:  # a symlink or a special file: not what a copy makes; keep the plain path
                return None
    folders.sort(key=lambda rel: rel.count("/"))  # parents before children
    snapshot = {f.rel: hashlib.sha256(f.data).hexdigest() for f in files}
    return WorkspaceImage(tuple(folders), tuple(files), dict(sorted(snapshot.items())))


class WorkspaceImages:
    """One run's images: one per distinct way of building a workspace (fixture folder,
    destination, setup seeds, sandbox), captured on first use, within `budget` bytes in
    all; past it, or for a fixture that cannot be imaged, the plain copy is used.

    A workspace made from an image and handed back with `give_back` is reused by a later
    trial when it is still exactly what the image makes (`_pool`), instead of removed."""

    def __init__(self, budget: int = 16 * MAX_IMAGE_BYTES, idle_bytes: int = IDLE_BYTES) -> None:
        self.budget = budget
        self._images: dict[tuple[Any, ...], WorkspaceImage | None] = {}
        self._pools: dict[tuple[Any, ...], WorkspacePool] = {}
        self.idle = IdleBudget(idle_bytes)  # what the pools' idle workspaces may hold in all
        self._parents: dict[Path, Path] = {}
        self._lock = threading.Lock()  # trials make workspaces from several threads

    def create(self, task: WorkspaceSpec, parent: Path) -> Workspace:
        """A fresh workspace for `task` under `parent`, as `Workspace.create` makes it."""
        key = workspace_key(task)
        with self._lock:
            resolved = self._parents.get(parent)
            if resolved is None:
                parent.mkdir(parents=True, exist_ok=True)
                resolved = self._parents[parent] = parent.resolve()
            if key not in self._images:
                image = self._images[key] = self._capture(task, resolved)
                if image is not None:
                    self._pools[key] = WorkspacePool(image.data_by_path(), self.idle)
            image = self._images[key]
        if image is None:
            return Workspace.create(task, parent=resolved)
        pool = self._pools[key]
        prefix = workspace_prefix(task)
        ws: Workspace | None = pool.take(resolved, prefix)
        if ws is None:
            fresh = image.create(resolved, prefix)
            try:
                ws = pool.adopt(fresh, image.paths())
            except OSError as exc:
                fresh.remove()
                raise InfraError(f"cannot build a workspace under {resolved}: {exc}") from exc
        ws.initial = dict(image.snapshot)
        return ws

    def give_back(self, ws: Workspace) -> bool:
        """Hand back a finished trial's workspace for reuse; False when it is not one
        of these images' (or its pool is full): the caller then removes it."""
        return isinstance(ws, PooledWorkspace) and ws.pool.put(ws)

    def _capture(self, task: WorkspaceSpec, scratch: Path) -> WorkspaceImage | None:
        try:
            image = WorkspaceImage.capture(task, scratch, min(MAX_IMAGE_BYTES, self.budget))
        except (InfraError, OSError):
            return None  # the trial's own Workspace.create reports it, as it always did
        if image is not None:
            self.budget -= image.size
        return image


def workspace_key(task: WorkspaceSpec) -> tuple[Any, ...]:
    """What a fresh workspace is built from: tasks with equal keys get equal workspaces."""
    env = task.environment
    return (
        str(task.fixture_path),
        str(task.fixtures_root),
        env.sandbox,
        env.fixture_dest,
        tuple((seed.path, seed.from_) for seed in env.setup),
    )
