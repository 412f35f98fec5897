"""Small helpers for reading dataset rows: CSV and JSONL copies keep lists as text."""

from __future__ import annotations

import ast
from typing import Any

from trialrun.rundir import loads_limited


def as_list(value: Any) -> list[Any]:
    """A list column: a list, or its JSON / Python-literal text (CSV copies); text that is
    none (or nested past what json and ast read) is no list."""
    if isinstance(value, list | tuple):
        return list(value)
    if hasattr(value, "tolist"):  # numpy arrays from parquet
        return list(value.tolist())
    if isinstance(value, str) and value.strip().startswith("["):
        for parse in (loads_limited, ast.literal_eval):
            try:
                parsed = parse(value)
            # the parser's own limits: RecursionError, and MemoryError for its stack
            # (10^5 unary minus signs), raised at once, not after filling memory
            except (ValueError, SyntaxError, RecursionError, MemoryError):
                continue
            if isinstance(parsed, list):
                return parsed
    return []


def text(value: Any) -> str:
    return "" if value is None else str(value)


def first(row: dict[str, Any], *names: str) -> Any:
    """The first of `names` present (and not None) in `row`."""
    for name in names:
        if row.get(name) is not None:
            return row[name]
    return None
