"""A JSON file of trialrun's plain shape read with its `tasks` array an entry at a time.

summary.json and a baseline file are one object whose `tasks` array holds an entry a
task: read whole, a 10,000-task file is one tree of dicts several times its text. Here
the object's other members are read as `json.loads` reads them, and each entry of `tasks`
is decoded and handed to the caller, who makes it what it keeps (a row, a packed entry)
before the next is read. Anything out of the plain shape (no top-level object, a
repeated key, a trailing comma, a non-finite number, an error of any kind) raises
`NotPlain`: the caller then reads the file whole, with that path's value or message.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")  # what json skips between tokens


class NotPlain(Exception):
    """The text is not of the plain shape (or not finite): read it whole instead."""


def refuse_constant(name: str) -> float:
    raise NotPlain(name)


def finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise NotPlain(literal)
    return value


DECODER = json.JSONDecoder(parse_constant=refuse_constant, parse_float=finite)


def _interned_values(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return {sys.intern(key): sys.intern(value) if value.__class__ is str else value
            for key, value in pairs}


# an object's keys and text values interned as it is made: run.json's 10,000 entries of a
# few suites, tiers and policies hold one "golden", not one an entry (each entry's own
# copy let go at once, not when the whole file is read)
_INTERNING = json.JSONDecoder(parse_constant=refuse_constant, parse_float=finite,
                              object_pairs_hook=_interned_values)


def read_interned(text: str) -> Any:
    """The JSON value of `text` as `json.loads` reads it, its objects' keys and text
    values interned; None when it is not of the plain shape (see the module docstring)."""
    try:
        value, end = _INTERNING.raw_decode(text, _token(text, 0))
    except Exception:  # any refusal: the whole-file path says what is wrong, as before
        return None
    return value if _token(text, end) == len(text) else None

# reads the `tasks` array starting at the offset: (what the object holds under "tasks",
# where the array ends); the members read before it are passed in
TasksReader = Callable[[str, int, dict[str, Any]], tuple[Any, int]]


def read_object(text: str, read_tasks: TasksReader) -> dict[str, Any]:
    """The top-level object of `text`, its `tasks` array read by `read_tasks`."""
    at = _token(text, 0)
    if text[at] != "{":
        raise NotPlain("not an object")
    data: dict[str, Any] = {}
    at = _token(text, at + 1)
    while text[at] != "}":
        key, at = DECODER.raw_decode(text, at)
        at = _token(text, at)
        if not isinstance(key, str) or key in data or text[at] != ":":
            raise NotPlain("a repeated or odd key")
        at = _token(text, at + 1)
        if key == "tasks" and text[at] == "[":
            data[key], at = read_tasks(text, at, data)
        else:
            data[key], at = DECODER.raw_decode(text, at)
        at = _after(text, at, "}")
    if _token(text, at + 1) != len(text):
        raise NotPlain("text after the object")
    return data


def entries(
    text: str, at: int, decoder: json.JSONDecoder, make: Callable[[Any, int], Any]
) -> tuple[list[Any], int]:
    """`make(entry, index)` of each entry of the array starting at `at`, each decoded and
    made before the next is read, and where the array ends."""
    made: list[Any] = []
    at = _token(text, at + 1)
    while text[at] != "]":
        entry, at = decoder.raw_decode(text, at)
        made.append(make(entry, len(made)))
        at = _after(text, at, "]")
    return made, at + 1


def _token(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]


def _after(text: str, at: int, close: str) -> int:
    """Past the comma after a member (at the next one), or at `close`."""
    at = _token(text, at)
    if text[at] == ",":
        at = _token(text, at + 1)
        if text[at] in "]}":  # a trailing comma, which json refuses
            raise NotPlain("trailing comma")
    elif text[at] != close:
        raise NotPlain("no comma")
    return at
