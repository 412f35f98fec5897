"""`percentile` of a large packed array is the one `sorted()` gives, bit for bit, without
a float object per value."""

from __future__ import annotations

import math
import tracemalloc
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import percentile


def _by_sorting(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 0.5, 1.25, 5e-324, -5e-324, 1e308, -1e308]),
)
qs = st.one_of(st.sampled_from([0.0, 50.0, 95.0, 100.0]), st.floats(0, 100))


@settings(max_examples=300, deadline=None)
@given(values=st.lists(floats, min_size=1, max_size=300), q=qs)
def test_chunked_selection_gives_the_sorted_value(values: list[float], q: float) -> None:
    expected = _by_sorting(values, q)
    got = percentile(array("d", values), q, chunk=8)  # small chunks: the packed path
    assert got == expected and math.copysign(1, got) == math.copysign(1, expected)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.sampled_from([0.25, 0.5, 0.75, 3.0]), min_size=1, max_size=200),
       q=qs)
def test_many_ties(values: list[float], q: float) -> None:
    assert percentile(array("d", values), q, chunk=4) == _by_sorting(values, q)


def test_a_large_array_is_not_unpacked_into_floats() -> None:
    values = array("d", ((i * 7919) % 100_003 / 1000 + 0.001 for i in range(100_000)))
    tracemalloc.start()
    try:
        p95 = percentile(values, 95)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert p95 == _by_sorting(list(values), 95)
    assert peak < 24 * len(values)  # a list of floats takes 32 bytes a value
