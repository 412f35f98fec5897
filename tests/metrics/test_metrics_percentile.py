"""`percentile` of a large packed array is the one `sorted()` gives, bit for bit, without
a float object per value."""

from __future__ import annotations

import math
import tracemalloc
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import percentile
from trialrun.metrics._percentile import interpolate, percentiles_over


def _by_sorting(values: list[float], q: float) -> float:
    """The two order statistics by `sorted()`; the rule between them is `interpolate`'s,
    which `test_interpolation_at_the_extremes` pins down."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return interpolate(ordered[low], ordered[high], pos - low)


def test_interpolation_at_the_extremes() -> None:
    """A difference past the largest double (1e308 - -1e308) neither gives NaN at q = 0
    nor overflows between; an ordinary difference keeps numpy's rule bit for bit."""
    wide = array("d", [1e308, -1e308])
    assert percentile(wide, 0) == -1e308
    assert percentile(wide, 100) == 1e308
    assert percentile(wide, 50) == 0.0
    assert percentile(wide, 75) == 5e307
    assert interpolate(0.1, 0.7, 0.3) == 0.1 + (0.7 - 0.1) * 0.3
    assert math.isnan(interpolate(-math.inf, math.inf, 0.5))
    assert interpolate(math.inf, math.inf, 0.5) == math.inf


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


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.lists(floats, max_size=30), min_size=1, max_size=12),
       q=qs, chunk=st.integers(2, 16), packed=st.booleans())
def test_percentiles_over_parts_are_those_of_their_concatenation(
    parts: list[list[float]], q: float, chunk: int, packed: bool
) -> None:
    """A run's aggregate takes its percentiles over every task's latencies without pooling
    them: the same doubles as over the pooled array, at every q."""
    given = [array("d", p) if packed else p for p in parts]
    pooled = [x for p in parts for x in p]
    got = percentiles_over(given, (q, 50.0), chunk=chunk)
    expected = [percentile(array("d", pooled), x, chunk=chunk) for x in (q, 50.0)]
    assert list(map(repr, got)) == list(map(repr, expected))  # bit for bit (0.0, -0.0)
    assert (got[0] is None) == (not pooled)


def test_percentiles_over_many_tasks_pool_nothing() -> None:
    """One sorted packed copy (8 bytes a value) serves both figures: no pooled array, no
    float object per value."""
    parts = [array("d", ((t * 31 + i * 7919) % 1009 / 100 + 0.001 for i in range(10)))
             for t in range(10_000)]
    tracemalloc.start()
    try:
        p50, p95 = percentiles_over(parts, (50, 95))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    pooled = [x for p in parts for x in p]
    assert (p50, p95) == (_by_sorting(pooled, 50), _by_sorting(pooled, 95))
    assert peak < 12 * len(pooled)  # pooled and sorted: 16 bytes a value
