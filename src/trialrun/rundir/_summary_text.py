"""summary.json read a row at a time: each task entry is parsed, made a `SummaryRow` and
let go, so a 10,000-row file is never one tree of dicts (24 MB for 6 MB of text).

The same decoder and hooks as `loads_checked` read every value, so what is read is what
`json.loads` gives. Anything out of the plain shape `trialrun` writes (no top-level
object, a repeated key, `tasks` before `k`, a non-finite number, an error of any kind)
gives None: the caller then reads the file whole, with that path's value or message.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from trialrun.rundir._summary import Summary
from trialrun.rundir._summary_row import SummaryRow

_SPACE = re.compile(r"[ \t\n\r]*")  # what json skips between tokens


class _NotPlain(Exception):
    """The text is not of the plain shape (or not finite): read it whole instead."""


def _refuse_constant(name: str) -> float:
    raise _NotPlain(name)


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _NotPlain(literal)
    return value


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite)


def summary_by_rows(text: str) -> Summary | None:
    """The summary of summary.json's `text`, its rows made one at a time; None when the
    text is not of the plain shape (see the module docstring)."""
    try:
        return _read(text)
    except Exception:  # any refusal: the whole-file path says what is wrong, as before
        return None


def _token(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]


def _after(text: str, at: int, close: str) -> int:
    """Past the comma after a member (at the next one), or at `close`."""
    at = _token(text, at)
    if text[at] == ",":
        at = _token(text, at + 1)
        if text[at] in "]}":  # a trailing comma, which json refuses
            raise _NotPlain("trailing comma")
    elif text[at] != close:
        raise _NotPlain("no comma")
    return at


def _read(text: str) -> Summary:
    at = _token(text, 0)
    if text[at] != "{":
        raise _NotPlain("not an object")
    data: dict[str, Any] = {}
    rows: list[SummaryRow] | None = None
    at = _token(text, at + 1)
    while text[at] != "}":
        key, at = _DECODER.raw_decode(text, at)
        at = _token(text, at)
        if not isinstance(key, str) or key in data or text[at] != ":":
            raise _NotPlain("a repeated or odd key")
        at = _token(text, at + 1)
        if key == "tasks" and text[at] == "[":
            if "k" not in data:
                raise _NotPlain("tasks before k")
            rows, at = _rows(text, at, data)
            data[key] = []
        else:
            data[key], at = _DECODER.raw_decode(text, at)
        at = _after(text, at, "}")
    if _token(text, at + 1) != len(text):
        raise _NotPlain("text after the object")
    return Summary.from_json(data, rows=rows)


def _rows(text: str, at: int, data: dict[str, Any]) -> tuple[list[SummaryRow], int]:
    """The rows of the `tasks` array starting at `at`, and where it ends."""
    k = data.get("k") if isinstance(data.get("k"), int) else None
    rows: list[SummaryRow] = []
    at = _token(text, at + 1)
    while text[at] != "]":
        entry, at = _DECODER.raw_decode(text, at)
        rows.append(SummaryRow.from_json(entry, f"tasks[{len(rows)}]", k))
        at = _after(text, at, "]")
    return rows, at + 1
