"""Checks on the paths a task file names, as plain strings (nothing is touched on disk):
workspace paths (`fixture_dest`, `setup[].path`) stay inside the workspace, and fixture
names and `setup[].from` stay under the suite's `fixtures/` folder."""

from __future__ import annotations

import functools
from pathlib import PurePosixPath, PureWindowsPath

# The same rules as JSON Schema patterns (for `trialrun schema`): relative, no `..` part,
# no backslash or NUL; a fixtures path is also non-empty.
_RELATIVE = r"(?![A-Za-z]:)(?!/)(?!(.*/)?\.\.(/|$))[^\\\u0000]*"
WORKSPACE_PATH_PATTERN = f"^{_RELATIVE}$"
FIXTURES_PATH_PATTERN = f"^(?=.*[^/. ]){_RELATIVE}$"


@functools.lru_cache(maxsize=4096)  # a suite names the same few fixtures many times
def _escape(text: str) -> str | None:
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


def workspace_path_problem(target: str, what: str, *, allow_root: bool) -> str | None:
    """Why `target` can't be a path inside the workspace (None when it can)."""
    if not target.strip() or target.strip() in (".", "./"):
        return (
            None if allow_root else f"{what} is empty; name a file relative to the workspace root"
        )
    why = _escape(target)
    if why == "nul":
        return f"{what} contains a NUL byte"
    if why == "backslash":
        return f"{what} {target!r} contains a backslash; use '/' between folders"
    if why == "absolute":
        return f"{what} {target!r} is absolute; make it relative to the workspace root"
    if why == "parent":
        return f"{what} {target!r} leaves the workspace ('..'); make it relative to its root"
    return None


def fixtures_path_problem(name: str, what: str) -> str | None:
    """Why `name` can't be a path under the suite's fixtures/ folder (None when it can)."""
    if not name.strip() or name.strip("/. ") == "" or _escape(name):
        return (
            f"{what} {name!r} must be a path under fixtures/ "
            "(relative, without '..', '\\' or a leading '/')"
        )
    return None
