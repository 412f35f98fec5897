"""The one rule for a path a task file names relative to a root (the workspace, the
fixtures folder, a fixture): relative, no `..` part, no backslash, no NUL. Checked as a
plain string, nothing touched on disk; the same rule as a JSON Schema pattern."""

from __future__ import annotations

import functools
from pathlib import PurePosixPath, PureWindowsPath

RELATIVE_PATH_RULE = r"(?![A-Za-z]:)(?!/)(?!(.*/)?\.\.(/|$))[^\\\u0000]*"
RELATIVE_PATH_PATTERN = f"^{RELATIVE_PATH_RULE}$"


@functools.lru_cache(maxsize=4096)  # a suite names the same few paths many times
def path_escape(text: str) -> str | None:
    """'absolute', 'parent' (a `..` part), 'backslash' or 'nul'; None for a plain relative path."""
    if "\x00" in text:
        return "nul"
    if "\\" in text:
        return "backslash"
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).drive:
        return "absolute"
    if ".." in PurePosixPath(text).parts:
        return "parent"
    return None


def relative_path_problem(text: str, what: str, root: str) -> str | None:
    """Why `text` (the field `what`) can't name a path under `root`, in one line, or None."""
    why = path_escape(text)
    if why == "nul":
        return f"{what} contains a NUL character; remove it"
    if why == "backslash":
        return f"{what} {text!r} contains a backslash; use '/' between folders"
    if why == "absolute":
        return f"{what} {text!r} is absolute; make it relative to {root}"
    if why == "parent":
        return f"{what} {text!r} leaves {root} ('..'); make it relative to its root"
    return None
