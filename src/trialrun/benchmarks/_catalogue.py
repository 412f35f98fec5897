"""Which benchmark a name means: trialrun's own (registered) first, then OpenJarvis's
catalogue when `openjarvis` is installed; and the dataset provider for either kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trialrun.benchmarks._datasets import BenchmarkDataset, DatasetProvider
from trialrun.benchmarks._types import BENCHMARKS, Benchmark
from trialrun.benchmarks.openjarvis import (
    OpenJarvisBenchmark,
    OpenJarvisDataset,
    catalogue,
    openjarvis_benchmark,
)

TRIALRUN = "trialrun"
OPENJARVIS = "openjarvis"


@dataclass(frozen=True, slots=True)
class BenchmarkListing:
    """One benchmark as `list --benchmarks` shows it, with where it comes from."""

    name: str
    origin: str  # trialrun | openjarvis
    description: str
    dataset: str | None
    split: str | None
    backend: str
    category: str | None = None


def find_benchmark(name: str) -> Callable[[], Benchmark] | None:
    """The factory for `name`: trialrun's own, else OpenJarvis's, else None."""
    own = BENCHMARKS.get(name)
    if own is not None:
        return own
    return openjarvis_benchmark(name)


def origin_of(name: str) -> str | None:
    if BENCHMARKS.get(name) is not None:
        return TRIALRUN
    return OPENJARVIS if name in catalogue() else None


def known_names() -> list[str]:
    return sorted({*BENCHMARKS.names(), *catalogue()})


def dataset_for(
    bench: Benchmark, source: str | None, *, base: Path | None, subset: str | None = None
) -> DatasetProvider:
    """The records' provider: OpenJarvis's (through its adapter) or trialrun's."""
    if isinstance(bench, OpenJarvisBenchmark):
        return OpenJarvisDataset(bench, source, base=base, subset=subset)
    return BenchmarkDataset(bench, source, base=base)


def listings() -> list[BenchmarkListing]:
    """Every benchmark a suite can name: trialrun's, then OpenJarvis's it does not shadow."""
    rows: list[BenchmarkListing] = []
    for name, factory in BENCHMARKS:
        bench = factory()
        source = bench.default_source
        rows.append(
            BenchmarkListing(
                name=name,
                origin=TRIALRUN,
                description=bench.description,
                dataset=source.name if source else None,
                split=source.split if source else None,
                backend=bench.default_backend,
            )
        )
    for name, entry in catalogue().items():
        if BENCHMARKS.get(name) is None:
            rows.append(
                BenchmarkListing(
                    name=name,
                    origin=OPENJARVIS,
                    description=entry.description,
                    dataset=None,
                    split=None,
                    backend="direct",
                    category=entry.category,
                )
            )
    return rows
