"""Shared helpers of the vault tools: confined path resolution, walking, reading."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from trialrun.sandbox import resolve_inside, resolve_note
from trialrun.tools._tool import ToolContext, ToolError

MAX_READ_CHARS = 200_000
MAX_SEARCH_BYTES = 5_000_000


def root_of(ctx: ToolContext) -> Path:
    return Path(os.path.realpath(ctx.workspace))


def rel(ctx: ToolContext, path: str | Path) -> str:
    """The vault-relative posix path of an absolute path inside the workspace."""
    out = os.path.relpath(path, root_of(ctx)).replace(os.sep, "/")
    return "" if out == "." else out


def inside(tool: str, ctx: ToolContext, user_path: str, *, allow_root: bool = True) -> Path:
    try:
        return resolve_inside(ctx.workspace, user_path, allow_root=allow_root)
    except ToolError as exc:
        raise ToolError(f"{tool}: {exc}") from None


def note(tool: str, ctx: ToolContext, user_path: str, *, must_exist: bool) -> Path:
    try:
        return resolve_note(ctx.workspace, user_path, must_exist=must_exist)
    except ToolError as exc:
        raise ToolError(f"{tool}: {exc}") from None


def require_file_path(tool: str, user_path: str) -> None:
    if not isinstance(user_path, str) or user_path.strip() in ("", ".", "/", "./"):
        raise ToolError(f"{tool}: a file path is required (e.g. 'notes/todo.md')")


def _points_inside(root: str, path: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def walk(root: Path, start: Path, recursive: bool = True) -> Iterator[tuple[str, bool]]:
    """Yield (absolute path, is_dir) under `start`, sorted, never leaving `root`.

    Symlinks whose target is outside the root (or dangling) are skipped; symlinked
    folders are listed but not descended into (no loops, no escapes).
    """
    real_root = os.path.realpath(root)
    try:
        with os.scandir(start) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            is_link = entry.is_symlink()
            if is_link and not _points_inside(real_root, entry.path):
                continue
            is_dir = entry.is_dir(follow_symlinks=True)
            if not is_dir and not entry.is_file(follow_symlinks=True):
                continue
        except OSError:
            continue
        yield entry.path, is_dir
        if is_dir and recursive and not is_link:
            yield from walk(root, Path(entry.path), recursive)


def read_text(path: Path) -> str:
    return decode_text(path.read_bytes())


def read_small_file(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most `max_bytes`, read without
    ever blocking (a fifo or device is not opened for reading); None otherwise, or when it
    cannot be opened (the caller's plain read then reports why)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        parts = []
        while chunk := os.read(fd, max(info.st_size, 65536)):
            parts.append(chunk)
            if sum(map(len, parts)) > max_bytes:  # grew while read: the plain read
                return None
        return b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)


def decode_text(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise ToolError(f"binary file ({len(data)} bytes)")
    return data.decode("utf-8", errors="replace")
