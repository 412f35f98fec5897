"""Repetitions reported honestly: min/median/max, the machine's load at each, paired ratios.

Every `bench/` script measures a figure at least three times and prints it through
`Series.line()`, e.g. ``trials/s  median 642  (min 570, max 693; n=3; load 0.4–1.9)``.
A comparison pairs repetitions (A then B, A then B, ...) and reports the ratio of each
pair, so drifting load hits both sides of a pair alike.

    from _repeat import Series, paired, load_now
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

MIN_REPEATS = 3


def load_now() -> float:
    """The 1-minute load average (0.0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


@dataclass(slots=True)
class Series:
    """One figure measured several times, with the load seen at each measurement."""

    name: str
    unit: str = ""
    values: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    def add(self, value: float, load: float | None = None) -> None:
        self.values.append(value)
        self.loads.append(load_now() if load is None else load)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    def line(self, fmt: str = ".3g") -> str:
        unit = f" {self.unit}" if self.unit else ""
        loads = f"{min(self.loads):.1f}–{max(self.loads):.1f}" if self.loads else "n/a"
        return (
            f"{self.name}: median {self.median:{fmt}}{unit} "
            f"(min {self.low:{fmt}}, max {self.high:{fmt}}; n={len(self.values)}; load {loads})"
        )

    def as_json(self) -> dict[str, object]:
        return {
            "median": self.median,
            "min": self.low,
            "max": self.high,
            "n": len(self.values),
            "loads": [round(x, 2) for x in self.loads],
        }


def repeat(
    name: str, measure: Callable[[], float], times: int = MIN_REPEATS, unit: str = ""
) -> Series:
    """Run `measure` `times` times (at least three), noting the load before each run."""
    series = Series(name, unit)
    for _ in range(max(times, MIN_REPEATS)):
        load = load_now()
        series.add(measure(), load)
    return series


def paired(
    name: str,
    first: Callable[[], float],
    second: Callable[[], float],
    times: int = MIN_REPEATS,
    unit: str = "",
) -> tuple[Series, Series, Series]:
    """Alternate the two measurements; return both series and the per-pair ratio first/second."""
    a, b = Series(f"{name} (first)", unit), Series(f"{name} (second)", unit)
    ratio = Series(f"{name} ratio first/second")
    for _ in range(max(times, MIN_REPEATS)):
        load = load_now()
        x = first()
        y = second()
        a.add(x, load)
        b.add(y, load)
        ratio.add(x / y if y else float("nan"), load)
    return a, b, ratio


def summary(series: Sequence[Series]) -> str:
    return "\n".join(s.line() for s in series)


def repeats_count(text: str) -> int:
    """argparse type of `--repeats`: a whole number, at least `MIN_REPEATS`."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if count < MIN_REPEATS:
        raise argparse.ArgumentTypeError(
            f"{count} is too few: min/median/max need at least {MIN_REPEATS}; "
            f"pass --repeats {MIN_REPEATS} or more"
        )
    return count


def add_repeats_arg(parser: argparse.ArgumentParser) -> None:
    """The `--repeats` flag every bench script takes (at least three; fewer exits 2)."""
    parser.add_argument(
        "--repeats", type=repeats_count, default=MIN_REPEATS,
        help=f"repetitions of each figure (at least {MIN_REPEATS}; min/median/max printed)",
    )  # fmt: skip


def spread(values: Sequence[float], fmt: str = ".1%") -> str:
    """A table cell: ``median (min–max)`` of one figure over its repetitions."""
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{mid:{fmt}} ({low:{fmt}}–{high:{fmt}})"
