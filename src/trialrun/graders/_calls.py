"""What a trial did, as the safety and trajectory graders read it: the turn of each tool
call, the paths each call touched (and how), the workspace diff, path globs.

A turn is one model call (1-based, as in the transcript's assistant messages). Calls are
matched to turns through the assistant messages' `tool_calls`; when an agent's record and
its messages disagree (a custom agent), a call's place is its index only.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, Literal

from trialrun.graders._types import TrialView
from trialrun.graders._values import compile_regex
from trialrun.graders.tools import arg_matches

# vault tool → how it touches the path in each argument
_OPS: dict[str, dict[str, str]] = {
    "read_file": {"path": "read"},
    "list_files": {"path": "read"},
    "write_file": {"path": "write"},
    "append_content": {"path": "write"},
    "create_folder": {"path": "write"},
    "update_frontmatter": {"path": "write"},
    "delete_file": {"path": "delete"},
    "move_file": {"sourcePath": "move", "targetPath": "write"},
}
# argument names that hold a path in tools trialrun does not know
_PATH_ARGS = frozenset(
    {"path", "file", "filename", "file_path", "filepath", "source", "target", "src", "dst",
     "sourcePath", "targetPath", "directory", "dir"}
)
Operation = Literal["read", "write", "delete", "move", "touch"]
OPERATIONS: tuple[Operation, ...] = ("read", "write", "delete", "move", "touch")


@dataclass(slots=True, frozen=True)
class Touch:
    """One path one call (or the workspace diff) touched."""

    path: str
    op: str  # read | write | delete | move | touch (an unknown tool's path argument)
    where: str  # "tool call #3 (delete_file)" or "workspace diff"
    turn: int | None


def call_turns(trial: TrialView) -> list[int | None]:
    """The turn (1-based model call) of each of `trial.tool_calls`; None where unknown."""
    turns: list[int] = []
    turn = 0
    for message in trial.messages:
        if message.get("role") != "assistant":
            continue
        turn += 1
        for _ in message.get("tool_calls") or []:
            turns.append(turn)
    if len(turns) != len(trial.tool_calls):
        return [None] * len(trial.tool_calls)
    return list(turns)


def answer_turn(trial: TrialView) -> int | None:
    """The turn of the final answer: the last model call."""
    count = sum(1 for m in trial.messages if m.get("role") == "assistant")
    return count or (trial.turns or None)


def call_place(index: int, name: str, turn: int | None) -> str:
    place = f"tool call #{index + 1} ({name})"
    return f"{place} in turn {turn}" if turn is not None else place


def norm_path(path: str) -> str:
    """A workspace-relative posix path: no leading ./ or /, no trailing /."""
    text = path.strip().replace("\\", "/").lstrip("/")
    if not text:
        return ""
    out = posixpath.normpath(text)
    return "" if out == "." else out


def touches(trial: TrialView) -> list[Touch]:
    """Every path the tool calls touched, in call order."""
    out: list[Touch] = []
    turns = call_turns(trial)
    for index, call in enumerate(trial.tool_calls):
        ops = _OPS.get(call.name)
        args = call.arguments if isinstance(call.arguments, dict) else {}
        for key, value in args.items():
            if not isinstance(value, str):
                continue
            op = ops.get(key) if ops is not None else ("touch" if key in _PATH_ARGS else None)
            if op is None:
                continue
            where = call_place(index, call.name, turns[index])
            out.append(Touch(norm_path(value), op, where, turns[index]))
    return out


def diff(trial: TrialView) -> dict[str, list[str]]:
    """created / modified / deleted files between the before and after snapshots."""
    before, after = trial.before, trial.after
    return {
        "created": sorted(p for p in after if p not in before),
        "modified": sorted(p for p in after if p in before and after[p] != before[p]),
        "deleted": sorted(p for p in before if p not in after),
    }


def last_touch(found: list[Touch], path: str, ops: tuple[str, ...]) -> Touch | None:
    """The last call that touched `path` (or its note without `.md`) with one of `ops`."""
    names = {path, path[:-3]} if path.endswith(".md") else {path}
    hit = None
    for touch in found:
        if touch.op in ops and touch.path in names:
            hit = touch
    return hit


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """`**` any depth (also none: `a/**` matches `a` and all below), `*` and `?` within one
    path segment, `[...]` a character class."""
    pat = norm_path(pattern) if pattern.strip() not in ("", "/") else "**"
    out: list[str] = []
    i = 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("/**", i) and i + 3 == len(pat):
            out.append("(?:/.*)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif pat[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pat[i] == "?":
            out.append("[^/]")
            i += 1
        elif pat[i] == "[" and "]" in pat[i + 1 :]:
            end = pat.index("]", i + 1)
            body = pat[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end + 1
        else:
            out.append(re.escape(pat[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def glob_match(pattern: str, path: str) -> bool:
    """Whether a workspace path matches a glob; a note path may omit `.md` on either side."""
    path = norm_path(path)
    regex = _glob_regex(pattern)
    if regex.match(path):
        return True
    base = posixpath.basename(path)
    return bool(base) and "." not in base and regex.match(path + ".md") is not None


def any_glob(patterns: list[str], path: str) -> str | None:
    """The first pattern the path matches, or None."""
    return next((p for p in patterns if glob_match(p, path)), None)


def value_matches(expected: Any, actual: Any) -> bool:
    """A tool-policy argument pattern: a string is a glob over the value's text (paths are
    normalised first), a list is any-of, `{regex, flags?}` a regex search, anything else
    typed equality."""
    if isinstance(expected, str):
        text = actual if isinstance(actual, str) else json.dumps(actual, default=str)
        return glob_match(expected, text) or _glob_regex(expected).match(text) is not None
    if isinstance(expected, list):
        return any(value_matches(e, actual) for e in expected)
    return arg_matches(actual, expected)


def check_arg_patterns(expected: Any) -> None:
    """Every `{regex, flags?}` in a tool-policy argument pattern compiles safely (any-of
    lists included); a bad one is a ValueError naming it, at load time."""
    if isinstance(expected, list):
        for option in expected:
            check_arg_patterns(option)
    elif isinstance(expected, dict) and "regex" in expected and set(expected) <= {"regex", "flags"}:
        if not isinstance(expected["regex"], str):
            raise ValueError("regex must be a string")
        compile_regex(expected["regex"], str(expected.get("flags") or ""))


def check_globs(values: list[str], where: str) -> list[str]:
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: a glob must be a non-empty string")
        _glob_regex(value)
    return values
