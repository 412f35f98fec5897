"""The `file_write` tool pack: write or append a text file inside the trial's workspace.

Paths follow the workspace rules of `resolve_inside` (relative, no `..` above the root,
no absolute path, no symlink leading out); the file itself is opened without following a
final symlink and must be a regular file (`open_fd`: never a FIFO or a device). The
parameters are OpenJarvis's: `path`, `content`, `mode` ("write" or "append"),
`create_dirs` (default false: a missing folder is an error naming the fix).
"""

from __future__ import annotations

import os
from typing import Any

from trialrun.core import FileRefused, open_fd
from trialrun.errors import ToolError
from trialrun.sandbox import resolve_inside
from trialrun.tools._options import no_options
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import tool_pack

MAX_WRITE_BYTES = 10 * 1024 * 1024
_MODES = {
    "write": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "append": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
}


def _target(ctx: ToolContext, path: str, create_dirs: bool) -> str:
    if not isinstance(path, str) or not path.strip():
        raise ToolError("file_write: a file path is required (e.g. 'out/answer.txt')")
    try:
        target = resolve_inside(ctx.workspace, path, allow_root=False, root_name="the workspace")
    except ToolError as exc:
        raise ToolError(f"file_write: {exc}") from None
    if path.endswith("/") or target.is_dir():
        raise ToolError(f"file_write: {path!r} is a folder; give a file path")
    parent = target.parent
    if not parent.is_dir():
        if parent.exists() or os.path.islink(parent):
            raise ToolError(f"file_write: the parent of {path!r} is not a folder")
        if not create_dirs:
            raise ToolError(
                f"file_write: the folder of {path!r} does not exist; set create_dirs=true"
            )
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ToolError(f"file_write: cannot create the folder: {exc.strerror}") from None
    return str(target)


@tool
def file_write(
    ctx: ToolContext,
    path: str,
    content: str,
    mode: str = "write",
    create_dirs: bool = False,
) -> str:
    """Write content to a file in the working folder. Supports write and append modes.

    Args:
        path: Path of the file, relative to the working folder, e.g. "out/answer.txt".
        content: Content to write to the file.
        mode: 'write' (overwrite/create) or 'append' (append to existing). Default: 'write'.
        create_dirs: Create parent directories if they don't exist. Default: false.
    """
    if mode not in _MODES:
        raise ToolError(f"file_write: invalid mode {mode!r}; use 'write' or 'append'")
    data = content.encode("utf-8", "replace")
    if len(data) > MAX_WRITE_BYTES:
        raise ToolError(
            f"file_write: content is {len(data)} bytes; write at most {MAX_WRITE_BYTES}"
        )
    target = _target(ctx, path, bool(create_dirs))
    try:
        fd = open_fd(target, _MODES[mode], follow_symlinks=False, fix="write a regular file")
    except FileRefused as exc:  # named by the agent's path, not the absolute one
        raise ToolError(f"file_write: {path!r}: {exc.problem}") from None
    except OSError as exc:
        raise ToolError(f"file_write: cannot write {path!r}: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    verb = "Appended" if mode == "append" else "Wrote"
    return f"{verb} {len(data)} bytes to {path}"


@tool_pack("file_write", no_options("file_write"))
def file_write_pack(options: dict[str, Any]) -> list[Tool]:
    return [file_write]
