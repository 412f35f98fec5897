"""Seeded bootstrap intervals: a P95 difference between two samples, and a paired
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
from collections.abc import Sequence
from dataclasses import dataclass

from trialrun.metrics import percentile

DRAWS = 2000
SEED = 25  # fixed: the same inputs always give the same interval


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided bootstrap interval (percentile method) at `confidence`."""

    low: float
    high: float
    confidence: float

    @property
    def label(self) -> str:
        """"95%" (how the interval is introduced in messages)."""
        return f"{self.confidence * 100:g}%"


def interval(draws: Sequence[float], confidence: float) -> Interval:
    """The central `confidence` share of the draws (linear-interpolated percentiles)."""
    tail = (1 - confidence) / 2 * 100
    low = percentile(list(draws), tail)
    high = percentile(list(draws), 100 - tail)
    if low is None or high is None:
        raise ValueError("an interval needs at least one draw")
    return Interval(low, high, confidence)


def rng() -> random.Random:
    """A fresh generator at the fixed seed."""
    return random.Random(SEED)


def quantile_draws(
    values: Sequence[float], q: float, draws: int, generator: random.Random
) -> list[float]:
    """Bootstrap replicates of the `q` percentile (0–100) of `values` (see the module doc)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values to resample")
    position = (n - 1) * q / 100
    rank = math.floor(position)  # the lower order statistic, 0-based
    frac = position - rank
    above = n - rank - 1  # values above the lower order statistic
    out: list[float] = []
    for _ in range(draws):
        u = generator.betavariate(rank + 1, n - rank)
        low = ordered[min(int(u * n), n - 1)]
        if frac > 0 and above > 0:
            v = u + (1 - u) * (1 - generator.random() ** (1 / above))
            high = ordered[min(int(v * n), n - 1)]
            out.append(low + (high - low) * frac)
        else:
            out.append(low)
    return out


@dataclass(frozen=True, slots=True)
class PairedTotals:
    """One task's totals on both sides: summed figure and trials (a mean per trial is
    total / trials; a side without the figure has 0 trials)."""

    before_total: float
    before_trials: int
    after_total: float
    after_trials: int


def paired_mean_draws(
    units: Sequence[PairedTotals], draws: int, generator: random.Random
) -> list[tuple[float, float]]:
    """Bootstrap replicates of (mean before, mean after) per trial, resampling tasks (the
    same tasks on both sides: the task is the unit a rerun repeats). A replicate whose
    side has no trial is left out."""
    m = len(units)
    if m == 0:
        raise ValueError("no tasks to resample")
    bt = [u.before_total for u in units]
    bn = [u.before_trials for u in units]
    at = [u.after_total for u in units]
    an = [u.after_trials for u in units]
    population = range(m)
    out: list[tuple[float, float]] = []
    for _ in range(draws):
        picks = generator.choices(population, k=m)
        b_trials = sum(bn[i] for i in picks)
        a_trials = sum(an[i] for i in picks)
        if b_trials and a_trials:
            b = sum(bt[i] for i in picks) / b_trials
            out.append((b, sum(at[i] for i in picks) / a_trials))
    return out
