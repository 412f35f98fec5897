"""`percentile`: linear-interpolated percentiles, of packed doubles without unpacking them.

`sorted()` of a 100,000-trial latency array makes 100,000 float objects (32 bytes a
trial) for two of them. An `array("d")` that large is instead sorted a chunk at a time
(`CHUNK` floats unpacked at most) into a packed copy, and the two order statistics are
found by bisecting those sorted chunks over the doubles' bit patterns: the same values
`sorted()` gives, at 8 bytes a trial. Values that compare equal without being the same
double (0.0 and -0.0) or that do not compare at all (NaN) take the `sorted()` path, so
the result is the same bits either way.
"""

from __future__ import annotations

import math
import struct
from array import array
from bisect import bisect_right
from collections.abc import Sequence

CHUNK = 4096
_SIGN = 1 << 63
_DOUBLE = struct.Struct("<d")
_BITS = struct.Struct("<Q")


def percentile(values: Sequence[float], q: float, *, chunk: int = CHUNK) -> float | None:
    """Linear-interpolated percentile (numpy's default); None for no values."""
    if not values:
        return None
    n = len(values)
    pos = (n - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, n - 1)
    if isinstance(values, array) and values.typecode == "d" and n > chunk and _plain(values):
        runs = _sorted_runs(values, chunk)
        first, second = _smallest(runs, chunk, low), _smallest(runs, chunk, high)
    else:
        ordered = sorted(values)
        first, second = ordered[low], ordered[high]
    return interpolate(first, second, pos - low)


def percentiles_over(
    parts: Sequence[Sequence[float]], qs: Sequence[float], *, chunk: int = CHUNK
) -> list[float | None]:
    """`percentile` of the values of `parts` one after the other, at each of `qs`: the
    same doubles as over their concatenation, without making it (`SortedRuns`: one
    packed sorted copy, 8 bytes a value, serves every q)."""
    runs = SortedRuns(chunk)
    for part in parts:
        runs.add(part)
    return runs.percentiles(qs)


class SortedRuns:
    """Values added a part at a time and sorted a chunk at a time as they come (8 bytes a
    value): `percentiles` gives what `percentile` of their concatenation gives, without
    the concatenation (a reader's aggregate over 100,000 trials holds one packed copy,
    not two).

    The chunks are those `percentile` sorts (`chunk` consecutive values each). A run with
    a zero or a value that is not finite is read as `sorted()` of the chunks: the same
    list as `sorted()` of the values, as sorting is stable and the chunks keep the
    values' order among equal ones (NaN, which compares unequal to itself, never reaches
    a reader: run files and baselines refuse it)."""

    __slots__ = ("chunk", "runs", "pending", "plain")

    def __init__(self, chunk: int = CHUNK) -> None:
        self.chunk = chunk
        self.runs: array[float] = array("d")
        self.pending: list[float] = []  # the chunk being filled
        self.plain = True  # no zero and nothing non-finite so far

    def add(self, values: Sequence[float]) -> None:
        if not values:
            return
        if self.plain and not _plain(values):
            self.plain = False
        start = 0
        while start < len(values):
            take = self.chunk - len(self.pending)
            self.pending.extend(values[start : start + take])
            start += take
            if len(self.pending) == self.chunk:
                self.runs.extend(sorted(self.pending))
                self.pending.clear()

    def percentiles(self, qs: Sequence[float]) -> list[float | None]:
        """Each q's percentile of every value added (None for none); no value is added
        after."""
        runs, chunk = self.runs, self.chunk
        runs.extend(sorted(self.pending))
        self.pending.clear()
        n = len(runs)
        if not n:
            return [None for _ in qs]
        ordered: Sequence[float] | None = None
        if n <= chunk or not self.plain:
            ordered = sorted(runs)
        out: list[float | None] = []
        for q in qs:
            pos = (n - 1) * q / 100
            low = math.floor(pos)
            high = min(low + 1, n - 1)
            if ordered is not None:
                first, second = ordered[low], ordered[high]
            else:
                first, second = _smallest(runs, chunk, low), _smallest(runs, chunk, high)
            out.append(interpolate(first, second, pos - low))
        return out


def interpolate(first: float, second: float, fraction: float) -> float:
    """`first + (second - first) * fraction` (numpy's linear rule), except where the
    difference overflows (1e308 and -1e308): then the weighted sum, which does not, and
    `first` itself at fraction 0 rather than inf * 0 = NaN."""
    difference = second - first
    if math.isfinite(difference):
        return first + difference * fraction
    if fraction == 0:
        return first
    return first * (1 - fraction) + second * fraction


def _plain(values: Sequence[float]) -> bool:
    """No zero (0.0 and -0.0 tie) and nothing non-finite: equal values are the same bits."""
    return 0.0 not in values and math.isfinite(sum(values))


def _sorted_runs(values: array[float], chunk: int) -> array[float]:
    runs = array("d")
    for start in range(0, len(values), chunk):
        runs.extend(sorted(values[start : start + chunk]))
    return runs


def _key(value: float) -> int:
    """An integer in the order of the (finite, non-zero) doubles."""
    bits: int = _BITS.unpack(_DOUBLE.pack(value))[0]
    return -(bits - _SIGN) if bits & _SIGN else bits


def _value(key: int) -> float:
    value: float = _DOUBLE.unpack(_BITS.pack(key if key >= 0 else -key | _SIGN))[0]
    return value


def _at_most(runs: array[float], chunk: int, value: float) -> int:
    """How many values are <= `value` (each run bisected where it lies)."""
    return sum(
        bisect_right(runs, value, start, min(start + chunk, len(runs))) - start
        for start in range(0, len(runs), chunk)
    )


def _smallest(runs: array[float], chunk: int, index: int) -> float:
    """The `index`-th smallest value (0-based), as `sorted(values)[index]` gives it."""
    starts = range(0, len(runs), chunk)
    low = min(_key(runs[s]) for s in starts)
    high = max(_key(runs[min(s + chunk, len(runs)) - 1]) for s in starts)
    while low < high:  # the smallest key with more than `index` values at or below it
        middle = (low + high) // 2
        if _at_most(runs, chunk, _value(middle)) > index:
            high = middle
        else:
            low = middle + 1
    return _value(low)
