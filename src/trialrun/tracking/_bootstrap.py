"""Seeded bootstrap bounds: of a P95 difference between two samples, and of a paired
difference of per-trial means over tasks. Pure python, deterministic (fixed seed).

A quantile's bootstrap costs two random numbers per draw, whatever the number of values.
A bootstrap resample of n values is F⁻¹(U₁), …, F⁻¹(Uₙ) with F the values' empirical
distribution and Uᵢ uniform; F⁻¹ keeps order, so the resample's j-th smallest value is
F⁻¹(U₍ⱼ₎), where U₍ⱼ₎ ~ Beta(j, n − j + 1) and the next one is U₍ⱼ₎ plus the smallest of
the n − j uniforms above it. A quantile interpolated between two order statistics (as
`trialrun.metrics.percentile`) is drawn exactly as resampling and sorting n values would.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from trialrun.metrics import percentile

DRAWS = 2000
SEED = 25  # fixed: the same inputs always give the same bounds


@dataclass(frozen=True, slots=True)
class Bounds:
    """One-sided bootstrap confidence bounds (percentile method): the increase is above
    `low` with `confidence`, below `high` with `confidence` (together a 2c − 1 interval)."""

    low: float
    high: float
    confidence: float

    @property
    def label(self) -> str:
        """How messages introduce the bounds, e.g. "95% bounds"."""
        return f"{self.confidence * 100:g}% bounds"


def bounds(draws: Sequence[float], confidence: float) -> Bounds:
    """The `1 - confidence` and `confidence` percentiles of the draws (interpolated)."""
    low = percentile(list(draws), (1 - confidence) * 100)
    high = percentile(list(draws), confidence * 100)
    if low is None or high is None:
        raise ValueError("bounds need at least one draw")
    return Bounds(low, high, confidence)



def change_bounds(
    draws: Sequence[tuple[float, float]], confidence: float, scale: float = 1.0
) -> Bounds:
    """Bounds of the increase `(after - before) * scale` over (before, after) replicates."""
    return bounds([(y - x) * scale for x, y in draws], confidence)


def percent_bounds(draws: Sequence[tuple[float, float]], confidence: float) -> Bounds | None:
    """Bounds of the relative change in % over (before, after) replicates; None when no
    replicate has a positive `before`."""
    ratios = [(y / x - 1) * 100 for x, y in draws if x > 0]
    return bounds(ratios, confidence) if ratios else None

def rng() -> random.Random:
    """A fresh generator at the fixed seed."""
    return random.Random(SEED)


@lru_cache(maxsize=16)
def _order_uniforms(
    sizes: tuple[int, ...], q: float, draws: int
) -> tuple[tuple[tuple[float, float], ...], ...]:
    """Per sample size in turn, `draws` pairs (U₍ⱼ₎, U₍ⱼ₊₁₎) at the rank of the `q`
    percentile, from one fresh generator: they depend on the sizes only, so they are kept
    (the values are mapped through them per call; the result is the same as drawing anew)."""
    generator = rng()
    out = []
    for n in sizes:
        rank = math.floor((n - 1) * q / 100)
        above = n - rank - 1
        pairs = []
        for _ in range(draws):
            u = generator.betavariate(rank + 1, n - rank)
            v = u + (1 - u) * (1 - generator.random() ** (1 / above)) if above > 0 else u
            pairs.append((u, v))
        out.append(tuple(pairs))
    return tuple(out)


def _replicates(
    ordered: list[float], q: float, pairs: tuple[tuple[float, float], ...]
) -> list[float]:
    n = len(ordered)
    position = (n - 1) * q / 100
    frac = position - math.floor(position)
    last = n - 1
    out = []
    for u, v in pairs:
        low = ordered[min(int(u * n), last)]
        out.append(low + (ordered[min(int(v * n), last)] - low) * frac if frac else low)
    return out


def quantile_draws(values: Sequence[float], q: float, draws: int) -> list[float]:
    """Bootstrap replicates of the `q` percentile (0–100) of `values` (see the module doc)."""
    if not values:
        raise ValueError("no values to resample")
    [pairs] = _order_uniforms((len(values),), q, draws)
    return _replicates(sorted(values), q, pairs)


def quantile_difference_draws(
    before: Sequence[float], after: Sequence[float], q: float, draws: int
) -> list[tuple[float, float]]:
    """Bootstrap replicates of the `q` percentile of each sample, drawn independently:
    (before, after) pairs."""
    if not before or not after:
        raise ValueError("no values to resample")
    b_pairs, a_pairs = _order_uniforms((len(before), len(after)), q, draws)
    b = _replicates(sorted(before), q, b_pairs)
    a = _replicates(sorted(after), q, a_pairs)
    return list(zip(b, a, strict=True))


@dataclass(frozen=True, slots=True)
class PairedTotals:
    """One task's totals on both sides: summed figure and trials (a mean per trial is
    total / trials; a side without the figure has 0 trials)."""

    before_total: float
    before_trials: int
    after_total: float
    after_trials: int


Picker = Callable[[list[float]], tuple[float, ...]]
CACHED_TASKS = 100  # resamples of up to this many tasks are kept (2000 × m indices each)


def _draw_task_picks(m: int, draws: int) -> Iterator[Picker]:
    """`draws` resamples of m tasks from a fresh generator, each as a getter of the items."""
    generator = rng()
    population = range(m)
    for _ in range(draws):
        picks = generator.choices(population, k=m)
        if m == 1:  # itemgetter of one index gives the item, not a tuple
            yield lambda column: (column[0],)
        else:
            yield itemgetter(*picks)


@lru_cache(maxsize=8)
def _kept_task_picks(m: int, draws: int) -> tuple[Picker, ...]:
    return tuple(_draw_task_picks(m, draws))


def _task_picks(m: int, draws: int) -> Iterable[Picker]:
    """The resamples of m tasks: they depend on m only, so small ones are kept (the same
    as drawing them anew)."""
    return _kept_task_picks(m, draws) if m <= CACHED_TASKS else _draw_task_picks(m, draws)


def paired_mean_draws(units: Sequence[PairedTotals], draws: int) -> list[tuple[float, float]]:
    """Bootstrap replicates of (mean before, mean after) per trial, resampling tasks (the
    same tasks on both sides: the task is the unit a rerun repeats). A replicate whose
    side has no trial is left out."""
    if not units:
        raise ValueError("no tasks to resample")
    before_total = [u.before_total for u in units]
    before_trials = [float(u.before_trials) for u in units]
    after_total = [u.after_total for u in units]
    after_trials = [float(u.after_trials) for u in units]
    out: list[tuple[float, float]] = []
    for pick in _task_picks(len(units), draws):
        bn, an = sum(pick(before_trials)), sum(pick(after_trials))
        if bn and an:
            out.append((sum(pick(before_total)) / bn, sum(pick(after_total)) / an))
    return out
