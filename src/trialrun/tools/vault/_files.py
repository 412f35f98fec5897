"""File tools: read, list, write, append, delete, move, create folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Awaitable
from pathlib import Path

from trialrun.core import run_sync
from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import (
    MAX_READ_CHARS,
    decode_text,
    inside,
    note,
    read_small_file,
    rel,
    require_file_path,
    root_of,
    walk,
)

MAX_LIST = 1000
INLINE_READ_BYTES = 1024 * 1024  # larger files are read on a daemon thread


@tool(inline=True)
def read_file(ctx: ToolContext, path: str) -> str | Awaitable[str]:
    """Read a note or file in the vault and return its content.

    Args:
        path: Path relative to the vault root, e.g. "Projects/plan.md" (".md" may be omitted).
    """
    # on the event loop (`inline`): a small regular file is read here, in a few system
    # calls that cannot block; anything else is read on a daemon thread, within the tool
    # time limit, as every synchronous tool is
    require_file_path("read_file", path)
    target = note("read_file", ctx, path, must_exist=True)
    if target.is_dir():
        raise ToolError(f"read_file: {path!r} is a folder; use list_files to see its contents")
    data = read_small_file(target, INLINE_READ_BYTES)
    if data is None:
        return run_sync(_read_text_file, ctx, path, target)
    return _file_text(ctx, path, target, data)


def _read_text_file(ctx: ToolContext, path: str, target: Path) -> str:
    return _file_text(ctx, path, target, target.read_bytes())


def _file_text(ctx: ToolContext, path: str, target: Path, data: bytes) -> str:
    try:
        text = decode_text(data)
    except ToolError as exc:
        raise ToolError(f"read_file: {path!r} is a {exc}") from None
    if not text:
        return f"(empty file: {rel(ctx, target)})"
    if len(text) > MAX_READ_CHARS:
        cut = len(text) - MAX_READ_CHARS
        return text[:MAX_READ_CHARS] + f"\n[... truncated {cut} more characters]"
    return text


@tool
def list_files(ctx: ToolContext, path: str, recursive: bool = False) -> str:
    """List the files and folders in a vault folder, one path per line; folders end with "/".

    Args:
        path: Folder relative to the vault root; "" or "/" for the vault root.
        recursive: Also list everything in subfolders (default false).
    """
    folder = inside("list_files", ctx, path)
    if not folder.exists():
        raise ToolError(f"list_files: folder {path!r} not found")
    if not folder.is_dir():
        raise ToolError(f"list_files: {path!r} is a file; use read_file to read it")
    lines: list[str] = []
    extra = 0
    for entry, is_dir in walk(root_of(ctx), folder, recursive=bool(recursive)):
        if len(lines) >= MAX_LIST:
            extra += 1
            continue
        lines.append(rel(ctx, entry) + ("/" if is_dir else ""))
    shown = rel(ctx, folder) or "/"
    if not lines:
        return f"(empty folder: {shown})"
    if extra:
        lines.append(f"[... {extra} more entries]")
    return "\n".join(lines)


def _write(tool_name: str, ctx: ToolContext, path: str, content: str, append: bool) -> str:
    require_file_path(tool_name, path)
    target = note(tool_name, ctx, path, must_exist=False)
    if target.is_dir():
        raise ToolError(f"{tool_name}: {path!r} is a folder, not a file")
    if path.endswith("/"):
        raise ToolError(f"{tool_name}: {path!r} names a folder; give a file path")
    if not os.path.lexists(target) and "." not in target.name:
        # a new note named without an extension is a Markdown note (Obsidian's convention)
        target = inside(tool_name, ctx, path + ".md", allow_root=False)
    parent = target.parent
    if parent.exists() and not parent.is_dir():
        raise ToolError(f"{tool_name}: {rel(ctx, parent)!r} is a file, not a folder")
    parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    if append:
        existed = target.exists()
        if existed and target.stat().st_size:
            with open(target, "rb") as fh:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n" and not data.startswith(b"\n"):
                    data = b"\n" + data
        with open(target, "ab") as fh:
            fh.write(data)
        verb = "Appended" if existed else "Created"
        return f"{verb} {len(data)} bytes {'to' if existed else 'in'} {rel(ctx, target)}"
    existed = target.exists()
    with open(target, "wb") as fh:
        fh.write(data)
    note_text = " (replaced existing file)" if existed else ""
    return f"Wrote {len(data)} bytes to {rel(ctx, target)}{note_text}"


@tool
def write_file(ctx: ToolContext, path: str, content: str, summary: str | None = None) -> str:
    """Create a note or file, or replace its whole content. Missing folders are created.

    A new file named without an extension gets ".md".

    Args:
        path: File path relative to the vault root, e.g. "Notes/idea.md".
        content: The complete new content of the file.
        summary: Optional short description of the change.
    """
    return _write("write_file", ctx, path, content, append=False)


@tool
def append_content(ctx: ToolContext, path: str, content: str) -> str:
    """Append text to the end of a note (the note is created when it does not exist).

    Args:
        path: File path relative to the vault root (".md" may be omitted).
        content: Text to add at the end; a newline is inserted first if the file lacks one.
    """
    return _write("append_content", ctx, path, content, append=True)


@tool
def delete_file(ctx: ToolContext, path: str) -> str:
    """Delete a file, or a folder with everything in it.

    Args:
        path: File or folder path relative to the vault root (".md" may be omitted).
    """
    require_file_path("delete_file", path)
    target = note("delete_file", ctx, path, must_exist=True)
    shown = rel(ctx, target)
    if target.is_dir() and not target.is_symlink():
        count = sum(1 for _, is_dir in walk(root_of(ctx), target) if not is_dir)
        shutil.rmtree(target)
        return f"Deleted folder {shown}/ ({count} files)"
    target.unlink()
    return f"Deleted {shown}"


@tool
def move_file(ctx: ToolContext, sourcePath: str, targetPath: str) -> str:
    """Move or rename a file or folder. Missing target folders are created.

    Args:
        sourcePath: Current path relative to the vault root (".md" may be omitted).
        targetPath: New path; an existing folder means "move into it".
            Existing files are not overwritten.
    """
    require_file_path("move_file", sourcePath)
    require_file_path("move_file", targetPath)
    source = note("move_file", ctx, sourcePath, must_exist=True)
    target = inside("move_file", ctx, targetPath, allow_root=False)
    if target.is_dir() and not target.is_symlink():
        target = target / source.name
    elif (
        not target.suffix
        and source.suffix.lower() == ".md"
        and not source.is_dir()
        and not targetPath.endswith("/")
    ):
        target = target.with_name(target.name + ".md")
    elif targetPath.endswith("/"):
        target = target / source.name
    target = inside("move_file", ctx, rel(ctx, target), allow_root=False)
    if os.path.lexists(target):
        raise ToolError(f"move_file: target {rel(ctx, target)!r} already exists")
    if source.is_dir() and (target == source or source in target.parents):
        raise ToolError("move_file: cannot move a folder into itself")
    if target.parent.exists() and not target.parent.is_dir():
        raise ToolError(f"move_file: {rel(ctx, target.parent)!r} is a file, not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.rename(source, target)
    return f"Moved {rel(ctx, source)} to {rel(ctx, target)}"


@tool
def create_folder(ctx: ToolContext, path: str) -> str:
    """Create a folder (and any missing parent folders).

    Args:
        path: Folder path relative to the vault root, e.g. "Projects/2025".
    """
    require_file_path("create_folder", path)
    target = inside("create_folder", ctx, path, allow_root=False)
    if target.is_dir():
        return f"Folder {rel(ctx, target)}/ already exists"
    if os.path.lexists(target):
        raise ToolError(f"create_folder: {path!r} exists and is a file")
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ToolError(f"create_folder: {rel(ctx, parent)!r} is a file, not a folder")
            break
    target.mkdir(parents=True, exist_ok=True)
    return f"Created folder {rel(ctx, target)}/"
