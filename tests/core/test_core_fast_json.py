"""compact_json writes what json.dumps(ensure_ascii=False, compact, default=str) writes."""

from __future__ import annotations

import dataclasses
import datetime
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from trialrun.core import compact_json


def _reference(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.encode("utf-8", "backslashreplace")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_reads_back_as_json_writes_it(value: Any) -> None:
    assert json.loads(compact_json(value)) == json.loads(_reference(value))


@given(st.recursive(st.none() | st.booleans() | st.text(), lambda inner: st.lists(inner)
                    | st.dictionaries(st.text(), inner), max_leaves=20))
def test_same_bytes_without_numbers(value: Any) -> None:
    assert compact_json(value) == _reference(value)


@dataclasses.dataclass
class _Point:
    x: int


def test_what_orjson_writes_otherwise_goes_the_json_way() -> None:
    odd: list[Any] = [
        {"lone": "\ud800"},  # a lone surrogate: its escape, as the writers wrote it
        {1: "an int key", None: "a null key"},
        2**80,
        {"dc": _Point(1), "when": datetime.datetime(2026, 1, 2, 3, 4, 5), "set": {1}},
        b"bytes",
    ]
    for value in odd:
        assert compact_json(value) == _reference(value), value


def test_non_finite_numbers_are_null() -> None:
    assert compact_json({"a": float("nan"), "b": [float("inf")]}) == b'{"a":null,"b":[null]}'
    # also where orjson cannot write the value and json does the work
    assert compact_json({1: float("-inf")}) == b'{"1":null}'
