"""A fresh directory per trial, made from the task's fixture and `setup` seeds."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from trialrun.core import FileRefused, copy_regular
from trialrun.errors import InfraError, ToolError
from trialrun.sandbox._paths import resolve_inside
from trialrun.sandbox._snapshot import snapshot_dir
from trialrun.sandbox._spec import WorkspaceSpec

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


MAX_FIXTURE_FILE_BYTES = 256 * 1024 * 1024  # one fixture or setup file, copied per trial
_FIXTURE_FIX = "a fixture holds folders and regular files: remove it, or link a regular file"


def copy_tree(src: Path, dst: Path) -> None:
    """Copy a folder, following symlinks (their content is copied), refusing loops.

    A file (or the target of a link) must be a regular file within
    `MAX_FIXTURE_FILE_BYTES`: a link to a FIFO or a device is refused (`InfraError`),
    never opened to wait or read without end. FIFOs, sockets and devices that are not
    links are not fixture content: skipped."""
    _copy_tree(os.fspath(src), os.fspath(dst), set())


def _copy_tree(src: str, dst: str, ancestors: set[tuple[int, int]]) -> None:
    st = os.stat(src)
    key = (st.st_dev, st.st_ino)
    if key in ancestors:
        raise InfraError(f"fixture symlink loop at {src}")
    ancestors = ancestors | {key}
    os.makedirs(dst, exist_ok=True)
    with os.scandir(src) as it:
        entries = list(it)
    for entry in entries:
        target = os.path.join(dst, entry.name)
        if entry.is_dir(follow_symlinks=True):
            _copy_tree(entry.path, target, ancestors)
        elif entry.is_symlink() or entry.is_file(follow_symlinks=False):
            _copy_file(entry.path, target, "fixture")


def _copy_file(src: str | Path, dst: str | Path, what: str) -> None:
    """One fixture or setup file, by content: a regular file within its limit."""
    try:
        copy_regular(src, dst, MAX_FIXTURE_FILE_BYTES, fix=_FIXTURE_FIX)
    except FileNotFoundError:
        if os.path.islink(src):
            raise InfraError(f"{what} file {src} is a broken symlink") from None
        raise InfraError(f"{what} file {src} does not exist") from None
    except FileRefused as exc:
        raise InfraError(f"{what} file {exc}") from None


def _copy_any(src: Path, dst: Path) -> None:
    if src.is_dir():
        copy_tree(src, dst)
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    _copy_file(src, dst, "setup")


def remove_tree(path: Path) -> None:
    """Delete a folder and everything in it, read-only parts an agent made included.

    Never changes anything a symlink points to: a first pass removes what it can; when
    something stays (a folder the agent made read-only), the folders under `path` are
    made writable, each one opened without following a link, and a second pass removes
    the rest. Files are never chmod'ed (removing one needs only its folder writable).
    """
    if not os.path.lexists(path):
        return
    try:
        shutil.rmtree(path)
    except OSError:
        _open_folders(os.fspath(path))
        shutil.rmtree(path, ignore_errors=True)


_FOLDER = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_folders(path: str) -> None:
    """Give the owner rwx on every folder under `path` (itself included), opening each
    with O_NOFOLLOW relative to its parent: a symlink is never followed, so nothing
    outside the tree changes mode (`os.chmod` on a path would follow a link)."""
    try:
        fd = os.open(path, os.O_PATH | _FOLDER)
    except OSError:
        return
    _chmod_folder(fd)
    os.close(fd)
    try:
        top = os.open(path, os.O_RDONLY | _FOLDER)
    except OSError:
        return
    _open_below(top)


def _chmod_folder(fd: int) -> None:
    """chmod u+rwx the folder open as the O_PATH descriptor `fd` (through /proc: an
    O_PATH descriptor can't be fchmod'ed, and it names that folder, never a link)."""
    with contextlib.suppress(OSError):
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode) and mode & stat.S_IRWXU != stat.S_IRWXU:
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(mode) | stat.S_IRWXU)


def _open_below(folder: int) -> None:
    """`_open_folders` for the sub-folders of the open folder `folder` (closed here)."""
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                names = [e.name for e in it if e.is_dir(follow_symlinks=False)]
            for name in names:
                try:
                    handle = os.open(name, os.O_PATH | _FOLDER, dir_fd=current)
                except OSError:
                    continue  # gone, or swapped for a link: never followed
                _chmod_folder(handle)
                os.close(handle)
                with contextlib.suppress(OSError):
                    stack.append(os.open(name, os.O_RDONLY | _FOLDER, dir_fd=current))
        except OSError:
            pass
        finally:
            os.close(current)


def workspace_prefix(task: WorkspaceSpec) -> str:
    """The workspace folder's name prefix: the task id, made safe for a file name."""
    return f"trialrun-{_UNSAFE.sub('-', task.task_id)[:60]}-"


class Workspace:
    """One trial's directory. `create` builds it; `remove` deletes it (idempotent).

    `initial` is the snapshot of the fresh workspace when its maker already knows it
    (a `WorkspaceImage`), else None; `initial_snapshot()` returns it or takes one.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.initial: dict[str, str] | None = None

    @classmethod
    def create(cls, task: WorkspaceSpec, parent: Path | None = None) -> Workspace:
        """A fresh temp dir: the fixture copied into `fixture_dest`, plus `setup` seeds.

        For `sandbox: none` the directory stays empty. Any failure raises `InfraError`
        (and leaves nothing behind).
        """
        prefix = workspace_prefix(task)
        try:
            if parent is not None:
                Path(parent).mkdir(parents=True, exist_ok=True)
            path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent)).resolve()
        except OSError as exc:
            where = parent or "the temp dir"
            raise InfraError(f"cannot create a workspace under {where}: {exc}") from exc
        ws = cls(path)
        try:
            if task.environment.sandbox != "none":
                ws._populate(task)
        except InfraError:
            ws.remove()
            raise
        except (OSError, ToolError, shutil.Error) as exc:
            ws.remove()
            raise InfraError(f"task '{task.task_id}': cannot build its workspace: {exc}") from exc
        return ws

    def _populate(self, task: WorkspaceSpec) -> None:
        env = task.environment
        fixture = task.fixture_path
        if fixture is not None:
            if not Path(fixture).is_dir():
                raise InfraError(f"task '{task.task_id}': fixture folder {fixture} not found")
            dest = resolve_inside(self.path, env.fixture_dest or "")
            copy_tree(Path(fixture), dest)
        elif env.fixture_dest:
            resolve_inside(self.path, env.fixture_dest).mkdir(parents=True, exist_ok=True)
        for item in env.setup:
            root = task.fixtures_root
            if root is None:
                raise InfraError(
                    f"task '{task.task_id}': setup file {item.from_!r} needs a fixtures/ folder"
                )
            src = Path(root) / item.from_
            _copy_any(src, resolve_inside(self.path, item.path, allow_root=False))

    def snapshot(self) -> dict[str, str]:
        """{relative posix path: sha256 hex} of every file in the workspace."""
        return snapshot_dir(self.path)

    def initial_snapshot(self) -> dict[str, str]:
        """The fresh workspace's snapshot: known already, or taken now."""
        return self.initial if self.initial is not None else self.snapshot()

    def remove(self) -> None:
        """Delete the directory; safe to call twice."""
        remove_tree(self.path)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"Workspace({str(self.path)!r})"
