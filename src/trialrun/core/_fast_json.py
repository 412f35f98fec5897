"""Compact JSON for the hot path (results and transcript lines, request bodies): orjson
where it writes what `json.dumps` would, `json` itself everywhere else.

`compact_json(obj)` is `json.dumps(obj, ensure_ascii=False, separators=(",", ":"),
default=str)` as UTF-8 bytes, several times faster, with NaN and ±Infinity written as
null (what JSON.stringify writes; `json`'s `NaN` is not JSON). orjson refuses what it
cannot write the same way (a lone surrogate, a non-string key, an integer past 64 bits,
nesting past 254 levels): those go through `json`, so the output is `json`'s (a lone
surrogate as its `\\uXXXX` escape). Dataclasses and datetimes go to `default` (`str`)
as in `json`. What still differs reads back equal, or nearly: a float's exponent has no
`+` (`1e16`), and a plain `Enum` member is written as its value, not `str(member)`.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def _default(value: Any) -> str:
    return str(value)


def compact_json(obj: Any) -> bytes:
    """`obj` as compact JSON: UTF-8 bytes, non-ASCII unescaped, NaN/±Infinity as null,
    a value of another type as its `str`."""
    try:
        return orjson.dumps(obj, default=_default, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError is one
        pass
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str,
                          allow_nan=False)
    except ValueError:  # a non-finite number
        text = json.dumps(_finite_or_null(obj), ensure_ascii=False, separators=(",", ":"),
                          default=str, allow_nan=False)
    return text.encode("utf-8", "backslashreplace")


def _finite_or_null(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_null(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_or_null(item) for item in value]
    return value
