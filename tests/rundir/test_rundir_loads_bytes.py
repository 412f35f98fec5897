"""`loads_bytes` (orjson where it agrees) reads every text exactly as `loads_checked`."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.rundir._json import loads_bytes, loads_checked

_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                  max_size=4),
    max_leaves=20,
)


def _same(a: object, b: object) -> bool:
    """Equal with the same types throughout: repr tells 1 from 1.0, -0.0 from 0.0 and one
    key order from another."""
    return repr(a) == repr(b)


def _outcome(read: object, raw: bytes) -> object:
    try:
        return ("value", read(raw))  # type: ignore[operator]
    except (ValueError, UnicodeDecodeError) as exc:
        return ("error", type(exc).__name__, str(exc))


def _checked(raw: bytes) -> object:
    return loads_checked(raw.decode("utf-8"))


@settings(max_examples=300)
@given(_VALUES, st.booleans())
def test_any_json_value_reads_the_same(value: object, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    fast, slow = _outcome(loads_bytes, raw), _outcome(_checked, raw)
    assert fast[0] == slow[0] == "value"
    assert _same(fast[1], slow[1])


@pytest.mark.parametrize("text", [
    "-9223372036854775809",  # 19 digits past int64: orjson would read a float
    "123456789012345678901234567890",
    '{"a": [1, -9223372036854775809], "b": 0.5}',
    "0.0006000000000000001",  # a 19-digit fraction: a float either way
    "12345678901234567890.5",
    "1234567890123456789e2",
    '"12345678901234567890123"',
    '{"a": 1, "a": 2}',
    '"\\ud800"',  # a lone surrogate: orjson refuses, json reads it
    "[" * 1500 + "]" * 1500,  # past json's nesting limit (orjson reads it)
    "[" * 600 + "]" * 600,
    "1.7976931348623159e308",
    "NaN",
    '{"x": Infinity}',
    '{"x": 1e400}',
    "-0",
    "-0.0",
    "\ufeff{}",
    "{'a': 1}",
    "",
])
def test_edge_texts_read_or_fail_the_same(text: str) -> None:
    raw = text.encode("utf-8")
    fast, slow = _outcome(loads_bytes, raw), _outcome(_checked, raw)
    assert fast[0] == slow[0]
    if fast[0] == "value":
        assert _same(fast[1], slow[1])
    else:
        assert fast == slow


def test_bad_utf8_fails_as_before() -> None:
    raw = b'{"a": "\xff"}'
    assert _outcome(loads_bytes, raw) == _outcome(_checked, raw)


@pytest.mark.parametrize("text", ["NaN", '{"x": [Infinity, -Infinity, 1e400]}', "[1, 2.5]"])
def test_not_finite_reads_what_json_reads(text: str) -> None:
    from trialrun.rundir._json import loads_limited

    assert repr(loads_bytes(text.encode(), finite=False)) == repr(loads_limited(text))


@settings(max_examples=500)
@given(st.lists(st.sampled_from(["1", "0", "9", "1234567890", "000000000", ".", "e", "E",
                                 "-", ",", '"', "x"]), max_size=30))
def test_long_integer_finds_exactly_the_unfloated_runs(chars: list[str]) -> None:
    import re

    from trialrun.rundir._json import _long_integer

    raw = "".join(chars).encode()
    reference = re.search(rb"(?<![.\d])\d{19,}(?![.\deE])", raw) is not None
    assert _long_integer(raw) == reference
