"""`SortedRuns`: percentiles of values added a part at a time, sorted a chunk at a time as
they come: the same doubles as `percentile` of their concatenation, one packed copy."""

from __future__ import annotations

import tracemalloc
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import SortedRuns, percentile

floats = st.floats(allow_nan=False, allow_infinity=True, width=64)
qs = st.sampled_from([0.0, 5.0, 50.0, 90.0, 95.0, 99.0, 100.0])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.lists(floats | st.sampled_from([0.0, -0.0, 1.0]), max_size=30),
                      max_size=12),
       q=qs, chunk=st.integers(2, 16), packed=st.booleans())
def test_the_percentiles_of_the_concatenation_bit_for_bit(
    parts: list[list[float]], q: float, chunk: int, packed: bool
) -> None:
    runs = SortedRuns(chunk=chunk)
    for part in parts:
        runs.add(array("d", part) if packed else part)
    got = runs.percentiles((q, 50.0))
    pooled = array("d", [x for p in parts for x in p])
    expected = [percentile(pooled, x, chunk=chunk) for x in (q, 50.0)]
    assert list(map(repr, got)) == list(map(repr, expected))  # 0.0 and -0.0 too


def test_nothing_added_has_no_percentile() -> None:
    runs = SortedRuns()
    runs.add([])
    assert runs.percentiles((50, 95)) == [None, None]


def test_values_added_by_the_task_are_held_once() -> None:
    """10,000 tasks of 10 latencies: one packed sorted copy (8 bytes a value), not a
    concatenation and then its sorted copy (16 and more)."""
    parts = [array("d", ((t * 31 + i * 7919) % 1009 / 100 + 0.001 for i in range(10)))
             for t in range(10_000)]
    tracemalloc.start()
    try:
        runs = SortedRuns()
        for part in parts:
            runs.add(part)
        p50, p95 = runs.percentiles((50, 95))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    pooled = array("d", (x for p in parts for x in p))
    assert (p50, p95) == (percentile(pooled, 50), percentile(pooled, 95))
    assert peak < 11 * len(pooled)
