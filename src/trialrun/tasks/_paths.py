"""Checks on the paths a task file names, as plain strings (nothing is touched on disk):
workspace paths (`fixture_dest`, `setup[].path`) stay inside the workspace, and fixture
names and `setup[].from` stay under the suite's `fixtures/` folder."""

from __future__ import annotations

from trialrun.core import RELATIVE_PATH_PATTERN, RELATIVE_PATH_RULE
from trialrun.core import path_escape as _escape

# The same rules as JSON Schema patterns (for `trialrun schema`): relative, no `..` part,
# no backslash or NUL; a fixtures path is also non-empty.
WORKSPACE_PATH_PATTERN = RELATIVE_PATH_PATTERN
FIXTURES_PATH_PATTERN = f"^(?=.*[^/. ]){RELATIVE_PATH_RULE}$"


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
