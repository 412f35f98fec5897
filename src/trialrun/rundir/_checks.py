"""Small type checks the records share; each returns why a value is unusable, or None."""

from __future__ import annotations

import json
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


def is_number(value: Any) -> bool:
    return isinstance(value, NUMBER) and not isinstance(value, bool)


def pos_int_or_none(value: Any) -> int | None:
    """A k: an int >= 1 (not a bool); anything else is None (the caller falls back)."""
    return value if is_pos_int(value) else None


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
