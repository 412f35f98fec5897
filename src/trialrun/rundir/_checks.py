"""Small type checks the records share; each returns why a value is unusable, or None."""

from __future__ import annotations

import json
import math
from typing import Any

NUMBER = (int, float)


class RecordError(ValueError):
    """Why a record read from a run folder cannot be used (the caller adds file and line)."""


def shown(value: Any) -> str:
    """A value as it appears in the file, cut to 40 characters."""
    try:
        return json.dumps(value)[:40]
    except (TypeError, ValueError):
        return repr(value)[:40]


def is_pos_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def non_finite(value: Any, where: str = "") -> tuple[str, float] | None:
    """(key path, value) of the first NaN or ±Infinity in a JSON value, else None.

    Python's json reads and writes them (`NaN`, `Infinity`), but they are not JSON: other
    readers refuse the file and every figure computed from one is NaN.
    """
    if isinstance(value, float):
        return None if math.isfinite(value) else (where or "(top level)", value)
    if isinstance(value, dict):
        for key, item in value.items():
            found = non_finite(item, f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = non_finite(item, f"{where}[{i}]")
            if found is not None:
                return found
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
