"""`Exact`: a running sum of floats held exactly, in one small object, for any order.

A per-task sum of costs that is rounded at each line, then summed again over tasks,
can differ in the last place from the same values summed line by line: float addition
is not associative. An `Exact` is the sum's value with nothing rounded away, so every
path (per task, per run, line order, task order) rounds it once, to the same double
`math.fsum` gives over the values:

- a float while every addition so far was exact (integer turns and tokens stay here);
- a complex `hi + lo·j` once one was not: two non-overlapping doubles whose real sum is
  the exact one (32 bytes, no list);
- a tuple of Shewchuk's partials in the rare case two do not suffice.

A non-finite value (or an overflowing sum) makes the sum that plain float (inf, nan) for
good, as `sum` would give it: nothing is exact there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Exact = float | complex | tuple[float, ...]

ZERO: Exact = 0.0


def plus(total: Exact, value: float) -> Exact:
    """`total` with `value` added, exactly."""
    if type(total) is float:
        nearest = total + value
        if nearest - total == value and nearest - value == total:
            return nearest  # exact (either difference is exact for the larger addend)
        if not math.isfinite(nearest):
            return nearest
        # Fast2Sum: the rounding error of the addition, exactly (the larger one first)
        larger, smaller = (total, value) if abs(total) >= abs(value) else (value, total)
        return complex(nearest, smaller - (nearest - larger))
    if type(total) is complex:  # two partials, the common inexact case: unrolled
        return _grown_two(total.imag, total.real, value)
    return _grown(parts(total), value)


def _grown_two(low: float, high: float, value: float) -> Exact:
    """`_grown((low, high), value)`, its loop unrolled (no tuple, no list)."""
    x, y = (low, value) if abs(value) < abs(low) else (value, low)
    first = x + y
    below = y - (first - x)
    x, y = (high, first) if abs(first) < abs(high) else (first, high)
    top = x + y
    if not math.isfinite(top):  # an overflow (or a non-finite value): plain from here
        return sum((low, high), value)
    above = y - (top - x)
    if below and above:
        return (below, above, top)
    if below or above:
        return complex(top, below or above)
    return top


def parts(total: Exact) -> tuple[float, ...]:
    """Non-overlapping doubles (smallest first) whose real sum is `total`'s exact value."""
    if isinstance(total, float):
        return (total,)
    if isinstance(total, complex):
        return (total.imag, total.real)
    return total


def rounded(total: Exact) -> float:
    """The exact sum rounded once (as `math.fsum` of the values added)."""
    if isinstance(total, float):
        return total
    return math.fsum(parts(total))


def combined(totals: Sequence[Exact]) -> float:
    """The sum of several exact sums, rounded once: `math.fsum` of every value any of them
    was given, whatever the grouping. Non-finite sums add as `sum` adds them."""
    try:
        return math.fsum(p for t in totals for p in parts(t))
    except OverflowError:  # the exact total is past the largest double
        return sum(p for t in totals for p in parts(t))
    except ValueError:  # inf and -inf
        return math.nan


def _grown(partials: tuple[float, ...], value: float) -> Exact:
    """Shewchuk's addition of `value` to exact `partials` (as `math.fsum` keeps them)."""
    kept: list[float] = []
    for part in partials:
        if abs(value) < abs(part):
            value, part = part, value
        high = value + part
        if not math.isfinite(high):  # an overflow (or a non-finite value): plain from here
            return sum(partials, value)
        low = part - (high - value)
        if low:
            kept.append(low)
        value = high
    if not kept:
        return value
    if len(kept) == 1:
        return complex(value, kept[0])
    return (*kept, value)
