"""Path containment for the agent's tool calls: every user path stays inside the root.

Rules (documented in the README):
- paths are relative to the root and use "/" as the separator; a leading "./" is fine;
  "", "." and "/" alone mean the root itself;
- refused: other absolute paths, backslashes, NUL bytes, a component over 255 bytes or a
  path over 4096 bytes, `..` that climbs above the root, and any symlink along the path
  (dangling ones too) whose resolution leaves the root;
- `..` that stays inside (`a/../b`) is collapsed lexically before the symlink check, so
  the returned path is exactly the one that is checked.
"""

from __future__ import annotations

import os
from pathlib import Path

from trialrun.errors import ToolError

MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4096
_ROOT_ALIASES = ("", ".", "/", "./")


def _inside(real_root: str, candidate: str) -> bool:
    return candidate == real_root or candidate.startswith(real_root.rstrip(os.sep) + os.sep)


def resolve_inside(
    root: Path, user_path: str, *, allow_root: bool = True, root_name: str = "the vault"
) -> Path:
    """The absolute path `user_path` names inside `root`, or raise `ToolError`.

    The message is what the agent sees, e.g. "refused: '../x' is outside the vault";
    `root_name` is what the tool calls its root ("the workspace" for the code tools).
    With `allow_root=False` the root itself (an empty path) is refused.
    """
    if not isinstance(user_path, str):
        raise ToolError(f"refused: path must be a string, got {type(user_path).__name__}")
    shown = user_path if len(user_path) <= 120 else user_path[:117] + "..."
    if "\x00" in user_path:
        raise ToolError(f"refused: {shown!r} contains a NUL byte")
    if len(user_path.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise ToolError(f"refused: path is longer than {MAX_PATH_BYTES} bytes")
    if "\\" in user_path:
        raise ToolError(f"refused: {shown!r} contains a backslash; use '/' between folders")
    real_root = os.path.realpath(root)
    if user_path.strip() in _ROOT_ALIASES:
        if not allow_root:
            raise ToolError(f"refused: a file path is required, not {root_name} root")
        return Path(real_root)
    if user_path.startswith("/"):
        raise ToolError(
            f"refused: {shown!r} is an absolute path; give a path relative to {root_name} root"
        )
    parts: list[str] = []
    for part in user_path.split("/"):
        if part in ("", "."):
            continue
        if len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
            raise ToolError(f"refused: a name in {shown!r} is longer than {MAX_NAME_BYTES} bytes")
        if part == "..":
            if not parts:
                raise ToolError(f"refused: {shown!r} is outside {root_name}")
            parts.pop()
            continue
        parts.append(part)
    if not parts:
        if not allow_root:
            raise ToolError(f"refused: a file path is required, not {root_name} root")
        return Path(real_root)
    candidate = os.path.join(real_root, *parts)
    # realpath resolves every symlink along the path, dangling ones included.
    try:
        resolved = os.path.realpath(candidate)
    except (OSError, ValueError) as exc:  # pragma: no cover - platform oddities
        raise ToolError(f"refused: {shown!r}: {exc}") from exc
    if not _inside(real_root, resolved):
        raise ToolError(f"refused: {shown!r} is outside {root_name} (a symlink points out)")
    return Path(candidate)


def resolve_note(root: Path, user_path: str, must_exist: bool = True) -> Path:
    """Like `resolve_inside`, but a note path may omit `.md`.

    The path as given wins when it exists; otherwise `PATH.md` when that exists. With
    `must_exist` a missing file raises `ToolError("'PATH' not found")`; without it the
    path as given is returned (or `PATH.md` when it exists).
    """
    path = resolve_inside(root, user_path, allow_root=not must_exist)
    if os.path.lexists(path):
        return path
    if not path.name.lower().endswith(".md") and path != Path(os.path.realpath(root)):
        alt = resolve_inside(root, user_path.rstrip("/") + ".md")
        if os.path.lexists(alt):
            return alt
    if must_exist:
        raise ToolError(f"path {user_path!r} not found")
    return path
