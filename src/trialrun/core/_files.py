"""Opening files trialrun did not just write: regular files only, never past a size limit.

A run folder, a kept workspace or a fixture folder may hold a FIFO (opening it to read
waits for a writer: every reader hangs), a device such as /dev/zero (endless: a copy
fills the disk, a read the memory) or a symlink an agent planted. `open_regular` opens
without blocking (O_NONBLOCK), without following a final symlink when asked (O_NOFOLLOW),
and checks the file it opened (fstat: no swap between the check and the use): anything
but a regular file, or a file over its limit, is a `FileRefused`, one line naming the
file and why. `open_beneath` opens a path under a folder with no symlink followed on any
part of the way (a kept workspace's files are the agent's, links included).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from trialrun.errors import UserError

MB = 1024 * 1024
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symlink"),
)
_CHUNK = 1 << 20


class FileRefused(UserError):
    """A file that is not a regular file, or is larger than its limit (exit code 2).

    `source` is the file and `problem` what is wrong with it and the fix, so a caller
    that names the file otherwise (a tool: the agent's relative path) formats its own
    line; `kind` is what was found instead of a regular file (`a folder`), else None."""

    def __init__(self, problem: str, *, source: Path | str, kind: str | None = None) -> None:
        super().__init__(problem, source=source)
        self.kind = kind


def file_kind(mode: int) -> str:
    """'a FIFO', 'a character device', … for an `st_mode` that is not a regular file."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def size_text(limit: int) -> str:
    """A byte limit as people read it: '64 MB', '512 bytes'."""
    if limit >= MB and limit % MB == 0:
        return f"{limit // MB} MB"
    return f"{limit} bytes"


def _refuse(path: Path | str, why: str, fix: str, kind: str | None = None) -> FileRefused:
    return FileRefused(f"{why}; {fix}" if fix else why, source=path, kind=kind)


def _not_regular(path: Path | str, mode: int, fix: str) -> FileRefused:
    kind = file_kind(mode)
    return _refuse(path, f"{kind}, not a regular file", fix, kind)


def over_limit(path: Path | str, limit: int, fix: str = "") -> FileRefused:
    """The refusal of a file (or a line of it) past `limit` bytes."""
    return _refuse(path, f"over the {size_text(limit)} limit", fix)


def _checked_fd(
    path: Path | str, fd: int, limit: int | None, fix: str, limit_fix: str | None = None
) -> int:
    """`fd` when it is a regular file within `limit` (closed and refused otherwise)."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode, fix)
        if limit is not None and info.st_size > limit:
            raise over_limit(path, limit, fix if limit_fix is None else limit_fix)
        os.set_blocking(fd, True)  # O_NONBLOCK only guarded the open
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_fd(
    path: Path | str,
    flags: int = os.O_RDONLY,
    mode: int = 0o644,
    *,
    limit: int | None = None,
    follow_symlinks: bool = True,
    fix: str = "",
    limit_fix: str | None = None,
) -> int:
    """A descriptor of the regular file at `path` (`flags` as for `os.open`, e.g. for
    appending); a FIFO, device, socket or folder (or, with `follow_symlinks=False`, a
    symlink) is a `FileRefused` ending in `fix`, and so is a file over `limit` bytes
    (ending in `limit_fix`, when given). Other failures raise OSError as `os.open` does."""
    extra = os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_symlinks else os.O_NOFOLLOW)
    with contextlib.suppress(OSError):  # a device is refused before it is ever opened
        found = os.stat(path, follow_symlinks=follow_symlinks).st_mode
        if not (stat.S_ISREG(found) or stat.S_ISLNK(found)):
            raise _not_regular(path, found, fix)
    try:
        fd = os.open(path, flags | extra, mode)
    except OSError as exc:
        raise _open_failure(path, exc, fix, follow_symlinks) from None
    return _checked_fd(path, fd, limit, fix, limit_fix)


def _open_failure(path: Path | str, exc: OSError, fix: str, follow: bool) -> Exception:
    """A refusal for what the open itself reveals (a symlink under O_NOFOLLOW; a FIFO
    without a reader, opened to write), else the OSError unchanged."""
    if exc.errno == errno.ELOOP and not follow:
        return _refuse(path, "a symlink, not followed", fix)
    if exc.errno == errno.ENXIO:
        return _refuse(path, "a FIFO or socket, not a regular file", fix)
    return exc


def open_regular(
    path: Path | str,
    *,
    limit: int | None = None,
    follow_symlinks: bool = True,
    fix: str = "",
    limit_fix: str | None = None,
) -> io.BufferedReader:
    """The regular file at `path`, open to read in binary (see `open_fd`)."""
    fd = open_fd(path, limit=limit, follow_symlinks=follow_symlinks, fix=fix,
                 limit_fix=limit_fix)
    return os.fdopen(fd, "rb")


def read_regular(
    path: Path | str,
    limit: int,
    *,
    follow_symlinks: bool = True,
    fix: str = "",
    limit_fix: str | None = None,
) -> bytes:
    """The bytes of the regular file at `path`: at most `limit`, else a `FileRefused`
    (a file that grows past its limit while read is refused too)."""
    fd = open_fd(path, limit=limit, follow_symlinks=follow_symlinks, fix=fix,
                 limit_fix=limit_fix)
    try:
        data = _read_fd(fd, os.fstat(fd).st_size, limit)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise over_limit(path, limit, fix if limit_fix is None else limit_fix)
    return data


_READ_ON = 1 << 16  # what each further read asks for, past the size the file had


def _read_fd(fd: int, size: int, limit: int) -> bytes:
    """Up to `limit` + 1 bytes of `fd`, to its end: sized to the file, not the limit
    (a read of the limit reserves the whole limit, 64 MiB by default, for every small
    JSON file), and without a buffered reader (a report reads 30,000 transcripts)."""
    parts: list[bytes] = []
    total, want = 0, min(size, limit) + 1
    while total <= limit:
        chunk = os.read(fd, want)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        want = min(limit + 1 - total, _READ_ON)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_line(handle: io.BufferedIOBase, limit: int, where: str, fix: str = "") -> bytes:
    """The next line of `handle` (b"" at the end), never more than `limit` bytes held: a
    longer line is a `FileRefused` naming `where` (the file and line)."""
    line = handle.readline(limit + 1)
    if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
        raise over_limit(where, limit, fix)
    return line


def iter_lines(handle: io.BufferedIOBase, limit: int, where: str, fix: str = "") -> Iterator[bytes]:
    """Every line of `handle` (see `read_line`); `where` names the file."""
    number = 0
    while True:
        number += 1
        line = read_line(handle, limit, f"{where}:{number}", fix)
        if not line:
            return
        yield line


def copy_regular(
    src: Path | str,
    dst: Path | str,
    limit: int,
    *,
    follow_symlinks: bool = True,
    fix: str = "",
    limit_fix: str | None = None,
) -> None:
    """Copy the regular file `src` to a new file `dst`, its mode and times too (as
    `shutil.copy2`), refusing anything else and anything over `limit` bytes. Never
    more bytes than `src` held when opened are written."""
    with open_regular(src, limit=limit, follow_symlinks=follow_symlinks, fix=fix,
                      limit_fix=limit_fix) as source:
        info = os.fstat(source.fileno())
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        out = os.open(dst, flags, 0o600)  # never writes through a link at `dst`
        try:
            left = info.st_size
            while left > 0:
                block = source.read(min(_CHUNK, left))
                if not block:
                    break
                left -= len(block)
                view = memoryview(block)
                while view:
                    view = view[os.write(out, view):]
            os.fchmod(out, stat.S_IMODE(info.st_mode))
            os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
        finally:
            os.close(out)


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"{rel!r}: not a relative path inside its folder")
    return parts


@contextlib.contextmanager
def _folder_of(root: Path | str, parts: list[str]) -> Iterator[int]:
    """A descriptor of the folder holding `parts[-1]` under `root`, each step opened
    with O_NOFOLLOW (a symlink on the way is an OSError: ELOOP or ENOTDIR)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(root, flags)
    try:
        for part in parts[:-1]:
            step = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = step
        yield fd
    finally:
        os.close(fd)


def open_beneath(root: Path | str, rel: str, *, limit: int | None = None) -> io.BufferedReader:
    """The regular file `rel` under the folder `root`, reached without following any
    symlink (`root`'s last part included); refused (`FileRefused`) when it is a
    symlink or not a regular file or over `limit`; OSError when a part is missing,
    or is a symlink; ValueError for an absolute or climbing `rel`."""
    parts = _parts(rel)
    shown = Path(root) / rel
    with _folder_of(root, parts) as folder:
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
        found = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False).st_mode
        if not stat.S_ISREG(found):  # a link or a device: never opened
            raise _not_regular(shown, found, "")
        try:
            fd = os.open(parts[-1], flags, dir_fd=folder)
        except OSError as exc:
            raise _open_failure(shown, exc, "", False) from None
    return os.fdopen(_checked_fd(shown, fd, limit, ""), "rb")


def link_beneath(root: Path | str, rel: str) -> str | None:
    """The target text of `rel` under `root` when it is a symlink (reached without
    following any), else None (also when missing). The link is never followed."""
    try:
        parts = _parts(rel)
        with _folder_of(root, parts) as folder:
            info = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
            if not stat.S_ISLNK(info.st_mode):
                return None
            return os.fsdecode(os.readlink(parts[-1], dir_fd=folder))
    except (OSError, ValueError):
        return None
