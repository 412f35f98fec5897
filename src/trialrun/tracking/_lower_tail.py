"""P(T ≤ t) for T a sum of independent discrete laws, correctly rounded to a float.

The exact tail is a ratio of integers with about 17 bits per task of a run (k = 10):
convolving them stratum by stratum, as a small suite does, costs time growing with the
square of the trials times those digits (hours at 50,000 trials). Here each law is a
vector of probabilities in fixed point (× 2^bits, floored); the laws are multiplied
pairwise in a balanced tree, each product one integer multiplication (Kronecker
substitution: a vector packed into one integer, one slot per coefficient), keeping only
coefficients up to t and trimming the zero ones at the edges.

Every floor loses less than one unit (2^-bits), and an error does not grow through a
product of laws that each sum to at most 1, so the true tail lies in [S, S + R] units, R
the number of coefficients ever rounded. When both ends round to the same float, that is
the float of the exact ratio (rounding to nearest is monotone); else the precision grows,
and past `MAX_BITS` the exact integers are summed (`exact_tail`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

MAX_BITS = 4096
FIRST_BITS = 128
# a float's smallest subnormal is 2^-1074: a tail below 2^-1075 rounds to 0.0
SUBNORMAL_BITS = 1076

# (weights, total): P(X = x) = weights[x] / total, x = 0, 1, ...
Law = tuple[Sequence[int], int]
# (lowest degree, coefficients from it): a fixed-point vector with its zero edges trimmed
Poly = tuple[int, list[int]]


def exact_tail(laws: Sequence[Law], index: int, half_at: bool) -> float:
    """The same tail from exact integers (cost: trials² × digits; small suites only)."""
    weights, denom = [1], 1
    for law, total in laws:
        out = [0] * (len(weights) + len(law) - 1)
        for i, x in enumerate(weights):
            if x:
                for j, y in enumerate(law):
                    out[i + j] += x * y
        weights, denom = out, denom * total
    if not 0 <= index < len(weights):
        return 1.0 if index >= len(weights) else 0.0
    below, at = sum(weights[:index]), weights[index]
    numerator = Fraction(2 * below + at, 2) if half_at else Fraction(below + at)
    return float(numerator / denom)


def _trim(start: int, coeffs: list[int]) -> Poly:
    low, high = 0, len(coeffs)
    while low < high and not coeffs[low]:
        low += 1
    while high > low and not coeffs[high - 1]:
        high -= 1
    return start + low, coeffs[low:high]


def _leaf(law: Law, bits: int) -> list[int]:
    weights, total = law
    return [(w << bits) // total for w in weights]


def _multiply(a: Poly, b: Poly, bits: int, cap: int) -> tuple[Poly, int]:
    """The product of two fixed-point vectors up to degree `cap`, and the number of
    coefficients rounded."""
    start = a[0] + b[0]
    (la, xs), (lb, ys) = (len(a[1]), a[1]), (len(b[1]), b[1])
    if not la or not lb or start > cap:
        return (start, []), 0
    # a slot holds a sum of min(la, lb) products of two values ≤ 2^bits
    width = (2 * bits + min(la, lb).bit_length() + 1 + 7) // 8
    packed_a = int.from_bytes(b"".join(x.to_bytes(width, "little") for x in xs), "little")
    packed_b = int.from_bytes(b"".join(y.to_bytes(width, "little") for y in ys), "little")
    count = min(la + lb - 1, cap - start + 1)
    data = (packed_a * packed_b).to_bytes((la + lb) * width, "little")
    coeffs = [
        int.from_bytes(data[at : at + width], "little") >> bits
        for at in range(0, count * width, width)
    ]
    return _trim(start, coeffs), count


def _attempt(laws: Sequence[Law], index: int, half_at: bool, bits: int) -> tuple[int, int]:
    """(S, R) in units of 2^-(bits + 1): the computed tail and its error bound."""
    rounded = 0
    polys: list[Poly] = []
    # the same law object (equal strata share one), the same leaf; the same two factors,
    # the same product: each made once a level (by the objects' ids, alive meanwhile), so
    # 10,000 tasks of a few dozen margins hold a few dozen vectors, not 10,000
    leaves: dict[int, Poly] = {}
    for law in laws:
        leaf = leaves.get(id(law))
        if leaf is None:
            leaf = leaves[id(law)] = _trim(0, _leaf(law, bits))
        rounded += len(law[0])  # the leaf's coefficients, each rounded
        polys.append(leaf)
    del leaves
    while len(polys) > 1:
        paired: list[Poly] = []
        products: dict[tuple[int, int], tuple[Poly, int]] = {}
        for i in range(0, len(polys) - 1, 2):
            pair = (id(polys[i]), id(polys[i + 1]))
            made = products.get(pair)
            if made is None:
                made = products[pair] = _multiply(polys[i], polys[i + 1], bits, index)
            product, count = made
            rounded += count
            paired.append(product)
        if len(polys) % 2:
            paired.append(polys[-1])
        polys = paired
    start, coeffs = polys[0] if polys else (0, [1 << bits])
    cut = index - start
    below = sum(coeffs[: max(cut, 0)])
    at = coeffs[cut] if 0 <= cut < len(coeffs) else 0
    return (2 * below + at if half_at else 2 * (below + at)), 2 * rounded


def chernoff_log2(laws: Sequence[Law], index: int) -> float:
    """log2 of a Chernoff bound on P(T ≤ index): min over θ ≤ 1 of θ^-index Π E[θ^X]
    (a true bound at any θ; float error is far below the margin its users keep)."""
    counts = Counter((tuple(w), total) for w, total in laws)
    probs = [([w / total for w in law], count) for (law, total), count in counts.items()]

    def bound(log_theta: float) -> float:
        theta = math.exp(log_theta)
        logs = sum(count * math.log(sum(p * theta**x for x, p in enumerate(ps)))
                   for ps, count in probs)
        return (logs - index * log_theta) / math.log(2)

    low, high = -40.0, 0.0  # golden-section search of the convex exponent over ln θ
    for _ in range(60):
        a, b = low + (high - low) * 0.382, low + (high - low) * 0.618
        if bound(a) < bound(b):
            high = b
        else:
            low = a
    return min(bound(low), bound(high), bound(0.0))


def lower_tail(laws: Sequence[Law], index: int, half_at: bool = False) -> float:
    """P(T < index) + P(T = index) (× ½ with `half_at`, the mid-p), T = Σ of the laws
    (each `weights[x] / total` at x = 0, 1, ...): the float of the exact ratio."""
    laws = [law for law in laws if len(law[0]) > 1]  # a one-point law is certain
    error_bits = (2 * support_size(laws) * len(laws)).bit_length()
    tail = chernoff_log2(laws, index) if laws else 0.0
    if tail < -SUBNORMAL_BITS - 64:
        return 0.0  # the bound, with a wide margin, is below half the smallest float
    bits = max(FIRST_BITS, int(-tail) + error_bits + 80)
    while bits <= MAX_BITS:
        numerator, error = _attempt(laws, index, half_at, bits)
        scale = 1 << (bits + 1)
        low, high = float(Fraction(numerator, scale)), float(Fraction(numerator + error, scale))
        if low == high:
            return low
        # enough bits for 64 significant ones of the tail, or to tell it below 2^-1075
        magnitude = bits + 1 - numerator.bit_length() if numerator else SUBNORMAL_BITS
        bits = max(bits + 32, magnitude + error.bit_length() + 64)
    return exact_tail(laws, index, half_at)


def support_size(laws: Sequence[Law]) -> int:
    """How many values the sum can take (the exact path's length)."""
    return 1 + sum(len(w) - 1 for w, _ in laws)
