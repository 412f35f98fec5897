"""Small value helpers shared by the deterministic graders (typed equality, regex flags)."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Annotated, Any

import regex as _bounded
from pydantic import AfterValidator, Field, ValidationInfo

from trialrun.core import (
    RELATIVE_PATH_PATTERN,
    UnsafeRegex,
    compile_safe,
    regex_problem,
    regex_shape_problem,
    relative_path_problem,
)

_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


def regex_flags(flags: str) -> int:
    """ "ims" → re flags; anything else is a ValueError naming the bad letter."""
    out = 0
    for ch in flags or "":
        if ch not in _FLAGS:
            raise ValueError(f"unknown regex flag {ch!r}; use any of 'i', 'm', 's'")
        out |= _FLAGS[ch]
    return out


def regex_value_problem(pattern: str, flags: str = "") -> str | None:
    """Why a grader's pattern is refused, in one line, or None: too big to compile safely
    (trialrun.core.regex_problem: `re` compiles `(?:a{60000}){60000}` at once, the `regex`
    package graders match with copies it 3.6 billion times), or not `re` syntax."""
    try:
        bits = regex_flags(flags)
    except ValueError:
        bits, flags = 0, ""  # reported on the flags field
    problem = regex_shape_problem(pattern, bits)
    if problem is not None:
        return problem
    try:
        re.compile(pattern, bits)
    except re.error as exc:
        return exc.msg + (f" at position {exc.pos}" if exc.pos is not None else "")
    except (OverflowError, RecursionError) as exc:  # the size check should have caught it
        return f"it cannot be compiled ({type(exc).__name__}); simplify it"
    return regex_problem(pattern, _bounded_bits(flags))


def compile_regex(pattern: str, flags: str = "") -> re.Pattern[str]:
    """Compile or raise a ValueError that names the pattern (so task loading fails)."""
    problem = regex_value_problem(pattern, flags)
    if problem is not None:
        raise ValueError(f"invalid regex {snippet(repr(pattern), 80)}: {problem}")
    return re.compile(pattern, regex_flags(flags))


# A task author's pattern is matched against what the agent wrote: the `regex` package's
# match timeout keeps a backtracking pattern from holding the trial (an undetermined
# verdict naming the pattern, never a hang). Patterns are still validated by `re` above.
GRADER_REGEX_TIMEOUT_S = 5.0
_BOUNDED_FLAGS = {"i": _bounded.IGNORECASE, "m": _bounded.MULTILINE, "s": _bounded.DOTALL}


def _bounded_bits(flags: str) -> int:
    bits: int = _bounded.VERSION0
    for ch in flags or "":
        bits |= _BOUNDED_FLAGS.get(ch, 0)
    return bits


def _compile_bounded(pattern: str, flags: str) -> Any:
    """Compiled under the size checks and the memory budget (cached there)."""
    try:
        return compile_safe(pattern, _bounded_bits(flags))
    except UnsafeRegex as exc:
        raise ValueError(f"invalid regex {snippet(repr(pattern), 80)}: {exc}") from None


def search_bounded(pattern: str, flags: str, text: str) -> Any:
    """`re.search` semantics under a time limit; TimeoutError names the pattern."""
    try:
        return _compile_bounded(pattern, flags or "").search(text, timeout=GRADER_REGEX_TIMEOUT_S)
    except TimeoutError:
        raise TimeoutError(
            f"regex {pattern!r} is too slow: no result within {GRADER_REGEX_TIMEOUT_S:g} s; "
            "simplify the pattern (nested quantifiers backtrack without end)"
        ) from None


def _under(root: str) -> AfterValidator:
    def check(value: str, info: ValidationInfo) -> str:
        if problem := relative_path_problem(value, info.field_name or "path", root):
            raise ValueError(problem)
        return value

    return AfterValidator(check)


_RELATIVE = Field(min_length=1, json_schema_extra={"pattern": RELATIVE_PATH_PATTERN})
# A file a grader reads: relative to the workspace (or the fixture), never `/etc/passwd`
# or `../..`, refused when the task loads rather than read (or silently re-rooted) later.
WorkspacePath = Annotated[str, _RELATIVE, _under("the workspace root")]
FixturePath = Annotated[str, _RELATIVE, _under("the fixture folder")]


def as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def check_values(value: str | list[str]) -> str | list[str]:
    """A matcher value: a string or a non-empty list of strings (any-of)."""
    if isinstance(value, list) and not value:
        raise ValueError("value must be a string or a non-empty list of strings")
    return value


def check_patterns(value: str | list[str], info: Any) -> str | list[str]:
    """A regex matcher value: every pattern compiles (with the already validated flags)."""
    check_values(value)
    flags = (info.data or {}).get("flags", "") if info is not None else ""
    try:
        regex_flags(flags)
    except ValueError:
        flags = ""  # reported on the flags field
    for pattern in as_list(value):
        compile_regex(pattern, flags)
    return value


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _date_text(v: _dt.date) -> set[str]:
    if isinstance(v, _dt.datetime):
        return {v.isoformat(), v.isoformat(sep=" "), v.strftime("%Y-%m-%dT%H:%M:%S")}
    return {v.isoformat()}


def typed_equal(found: Any, expected: Any) -> bool:
    """Deep equality that keeps types apart: 41200 != "41200", True != 1.

    Numbers compare by value across int/float (3 == 3.0); a date equals its ISO string.
    """
    if isinstance(found, _dt.date) or isinstance(expected, _dt.date):
        if isinstance(found, _dt.date) and isinstance(expected, _dt.date):
            return found == expected
        if isinstance(found, _dt.date) and isinstance(expected, str):
            return expected in _date_text(found)
        if isinstance(expected, _dt.date) and isinstance(found, str):
            return found in _date_text(expected)
        return False
    if isinstance(found, bool) or isinstance(expected, bool):
        return type(found) is type(expected) and found == expected
    if _is_number(found) or _is_number(expected):
        return _is_number(found) and _is_number(expected) and found == expected
    if isinstance(found, str) or isinstance(expected, str):
        return isinstance(found, str) and isinstance(expected, str) and found == expected
    if found is None or expected is None:
        return found is None and expected is None
    if isinstance(found, list | tuple) and isinstance(expected, list | tuple):
        return len(found) == len(expected) and all(
            typed_equal(f, e) for f, e in zip(found, expected, strict=True)
        )
    if isinstance(found, dict) and isinstance(expected, dict):
        return set(found) == set(expected) and all(
            typed_equal(found[k], expected[k]) for k in found
        )
    return bool(found == expected)


def snippet(text: str, limit: int = 400) -> str:
    """The start of `text`, for details."""
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more chars]"


def around(text: str, start: int, end: int, pad: int = 80) -> str:
    """The text around a match, for details."""
    lo, hi = max(0, start - pad), min(len(text), end + pad)
    return ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")
