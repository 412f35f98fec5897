"""A fresh directory per trial, made from the task's fixture and `setup` seeds."""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from trialrun.errors import InfraError, ToolError
from trialrun.sandbox._paths import resolve_inside
from trialrun.sandbox._snapshot import snapshot_dir
from trialrun.sandbox._spec import WorkspaceSpec

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def copy_tree(src: Path, dst: Path) -> None:
    """Copy a folder, following symlinks (their content is copied), refusing loops."""
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
        elif entry.is_file(follow_symlinks=True):
            shutil.copy2(entry.path, target)
        elif entry.is_symlink():
            raise InfraError(f"fixture file {entry.path} is a broken symlink")
        # fifos, sockets and devices are not fixture content: skipped


def _copy_any(src: Path, dst: Path) -> None:
    if src.is_dir():
        copy_tree(src, dst)
    elif src.is_file():
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    elif src.is_symlink():
        raise InfraError(f"setup file {src} is a broken symlink")
    else:
        raise InfraError(f"setup file {src} does not exist")


def _chmod_and_retry(func, path, _exc) -> None:  # noqa: ANN001 - shutil's callback shape
    try:
        os.chmod(os.path.dirname(path), stat.S_IRWXU)
        os.chmod(path, stat.S_IRWXU)
        func(path)
    except OSError:
        pass


def remove_tree(path: Path) -> None:
    """Delete a folder and everything in it, read-only parts an agent made included."""
    if os.path.lexists(path):
        shutil.rmtree(path, onerror=_chmod_and_retry)


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
