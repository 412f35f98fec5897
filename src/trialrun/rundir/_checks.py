"""Small type checks the records share; each returns why a value is unusable, or None."""

from __future__ import annotations

import json
import math
from typing import Any

NUMBER = (int, float)
# the largest integer every JSON reader (JavaScript's, the viewer's, too) holds exactly;
# a results line's counts and figures stay below it, and floats can hold what is summed
MAX_EXACT = 2**53


class RecordError(ValueError):
    """Why a record read from a run folder cannot be used (the caller adds file and line)."""


def shown(value: Any) -> str:
    """A value as it appears in the file, cut to 40 characters."""
    try:
        return json.dumps(value)[:40]
    except (TypeError, ValueError):
        return repr(value)[:40]


def too_large(value: Any) -> str | None:
    """Why an integer is too large for a figure ("a 4000-digit number, at most 2^53"),
    else None. Python reads ints of up to 4,300 digits; no float holds one past 1.8e308."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXACT:
        return f"a {len(str(abs(value)))}-digit number, at most 2^53"
    return None


def is_pos_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def non_finite(value: Any, where: str = "") -> tuple[str, float] | None:
    """(key path, value) of the first NaN or ±Infinity in a JSON value, else None.

    Python's json reads and writes them (`NaN`, `Infinity`), but they are not JSON: other
    readers refuse the file and every figure computed from one is NaN. Walked with a
    stack, not recursion: a value json read nested 900 deep is walked too.
    """
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return (path or "(top level)", item)
        elif isinstance(item, dict):
            stack.extend((f"{path}.{key}" if path else str(key), inner)
                         for key, inner in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", inner) for i, inner in reversed(list(enumerate(item))))
    return None


def finite_or_null(value: Any) -> Any:
    """A copy of a JSON value with NaN/±Infinity as null (what JSON.stringify writes)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(item) for item in value]
    return value


def shown_number(value: float) -> str:
    """NaN, Infinity or -Infinity, as the file spells it."""
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
