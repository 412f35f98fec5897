"""Workspaces made from an image, handed back after a trial and reused when untouched.

Making a workspace (mkdtemp, one create and write per file) and removing it (rmtree)
costs the kernel far more than looking at it: on ext4 a make-and-remove cycle of a
one-file fixture is ~200–300 µs of CPU, a scandir and an lstat per entry ~10 µs. So a
trial's workspace goes back to its image's pool (`WorkspacePool.put`), and the next
trial of any task with the same image takes it (`take`) if, and only if, it still is
exactly what the image makes:

- the same entries (a scandir of every folder: nothing added, removed or renamed),
- each entry's lstat as recorded when it was written: type, mode, inode, link count,
  owner, size, modification time and change time (a chmod, `utime`, a hard link, an
  xattr or a replaced file all show), and
- each file's bytes equal to the image's (read and compared: the kernel's change time
  is coarse, a write within the same tick would not show in it).

Anything else and the workspace is removed and a fresh one made, as before. A reused
workspace is renamed to a new name first, so a writer left from the trial before that
still holds its old path (a tool thread past its time limit) finds nothing there, as
it would after a removal. Not covered, as with removal: a process that escaped the
sweep (see `_jail`) writing through a descriptor it kept open during the next trial.
"""

from __future__ import annotations

import itertools
import os
import stat
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from trialrun.sandbox._workspace import Workspace, remove_tree

MAX_IDLE = 64  # workspaces kept per image; more are removed as before
IDLE_BYTES = 64 * 1024 * 1024  # file bytes all of a run's idle workspaces hold, at most

_NAMES = itertools.count()  # with the pid and a ".", never a name mkdtemp makes


@dataclass(frozen=True, slots=True)
class EntryMark:
    """What an untouched entry's lstat shows."""

    mode: int
    ino: int
    nlink: int
    uid: int
    gid: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> EntryMark:
        return cls(st.st_mode, st.st_ino, st.st_nlink, st.st_uid, st.st_gid,
                   st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def mark_tree(root: str, rels: list[str]) -> dict[str, EntryMark]:
    """The marks of `root` ("" in the result) and of each entry named in `rels`."""
    marks = {"": EntryMark.of(os.lstat(root))}
    for rel in rels:
        marks[rel] = EntryMark.of(os.lstat(os.path.join(root, rel)))
    return marks


def untouched(root: str, marks: dict[str, EntryMark], data: dict[str, bytes]) -> bool:
    """Whether the tree at `root` holds exactly the entries of `marks`, each as marked,
    and each file the bytes of `data` (rel → bytes)."""
    try:
        if EntryMark.of(os.lstat(root)) != marks[""]:
            return False
        seen = 1
        stack = [(root, "")]
        while stack:
            folder, prefix = stack.pop()
            with os.scandir(folder) as it:
                entries = list(it)
            for entry in entries:
                rel = prefix + entry.name
                mark = marks.get(rel)
                if mark is None or EntryMark.of(entry.stat(follow_symlinks=False)) != mark:
                    return False
                seen += 1
                if stat.S_ISDIR(mark.mode):
                    stack.append((entry.path, rel + "/"))
                elif not stat.S_ISREG(mark.mode) or not _same_bytes(entry.path, data[rel]):
                    return False
        return seen == len(marks)
    except (OSError, KeyError):
        return False


def _same_bytes(path: str, expected: bytes) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return _read_up_to(fd, len(expected) + 1) == expected
    finally:
        os.close(fd)


def _read_up_to(fd: int, limit: int) -> bytes:
    first = os.read(fd, limit)  # a regular file's whole content, short of a short read
    if len(first) == limit or not first:
        return first
    chunks = [first]
    left = limit - len(first)
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class IdleBudget:
    """The file bytes idle workspaces may hold in all, shared by a run's pools: without
    it, each image's pool could keep as many copies as its own peak of trials in flight
    after its tasks are done (thread-safe)."""

    def __init__(self, limit: int = IDLE_BYTES) -> None:
        self.left = limit
        self._lock = threading.Lock()

    def reserve(self, size: int) -> bool:
        with self._lock:
            if size > self.left:
                return False
            self.left -= size
            return True

    def free(self, size: int) -> None:
        with self._lock:
            self.left += size


class PooledWorkspace(Workspace):
    """A workspace its pool may take back: `marks` says how it looked when handed out."""

    def __init__(self, path: Path, pool: WorkspacePool, marks: dict[str, EntryMark]) -> None:
        super().__init__(path)
        self.pool = pool
        self.marks = marks


class WorkspacePool:
    """The idle workspaces of one image (thread-safe)."""

    def __init__(self, data: dict[str, bytes], budget: IdleBudget | None = None,
                 max_idle: int = MAX_IDLE) -> None:
        self.data = data  # each file's bytes, by its relative path
        self.size = sum(len(b) for b in data.values())
        self.budget = budget if budget is not None else IdleBudget()
        self.max_idle = max_idle
        self._idle: list[PooledWorkspace] = []
        self._lock = threading.Lock()

    def adopt(self, ws: Workspace, rels: list[str]) -> PooledWorkspace:
        """The workspace the image just wrote (its folders and files `rels`), marked so
        that `put` can take it back."""
        pooled = PooledWorkspace(ws.path, self, mark_tree(os.fspath(ws.path), rels))
        pooled.initial = ws.initial
        return pooled

    def put(self, ws: Workspace) -> bool:
        """Take a finished trial's workspace back; False when it is not this pool's
        (or the pool is full): then the caller removes it."""
        if not isinstance(ws, PooledWorkspace) or ws.pool is not self:
            return False
        with self._lock:
            if len(self._idle) >= self.max_idle or not self.budget.reserve(self.size):
                return False
            self._idle.append(ws)
        return True

    def take(self, parent: Path, prefix: str) -> PooledWorkspace | None:
        """An idle workspace renamed under `parent` with `prefix`, if one is exactly as
        its image made it (checked after the rename: a writer still holding the old
        path finds nothing); a changed one is removed. None when there is none."""
        while True:
            with self._lock:
                if not self._idle:
                    return None
                idle = self._idle.pop()
            self.budget.free(self.size)
            new = os.path.join(parent, f"{prefix}{next(_NAMES)}.{os.getpid()}")
            try:
                os.rename(idle.path, new)
            except OSError:
                remove_tree(idle.path)
                continue
            marks = _renamed(new, idle.marks)
            if marks is not None and untouched(new, marks, self.data):
                return PooledWorkspace(Path(new), self, marks)
            remove_tree(Path(new))


def _renamed(root: str, marks: dict[str, EntryMark]) -> dict[str, EntryMark] | None:
    """`marks` with the renamed root's new change time, or None when the root changed
    otherwise (a rename moves nothing but the change time)."""
    try:
        now = EntryMark.of(os.lstat(root))
    except OSError:
        return None
    if replace(now, ctime_ns=marks[""].ctime_ns) != marks[""]:
        return None
    return {**marks, "": now}
