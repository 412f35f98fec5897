"""`EvalRunner`, the seed's programmatic API: `EvalRunner(config, dataset, backend,
scorer).run(progress_callback)` → the run's summary, `.results` → its record lines.

`config` is a `PairRun` (one model × benchmark, every setting resolved; `single_pair`
makes one from a benchmark name and a model, as `trialrun run --benchmark` does).
`backend` is an `InferenceBackend` object or a backend name; `scorer` a custom scorer
object or a registered benchmark. Everything else is `run_benchmark`: the records run as
trialrun tasks and land in a normal run folder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from trialrun.benchmarks._datasets import DatasetProvider
from trialrun.benchmarks._records import read_records
from trialrun.benchmarks._runner import PairOutcome, run_benchmark
from trialrun.benchmarks._suite import Overrides, PairRun, Suite, expand
from trialrun.benchmarks._types import BENCHMARKS, InferenceBackend
from trialrun.rundir import ResultLine
from trialrun.runner import RunHooks

Progress = Callable[[int, int], None]


def single_pair(
    benchmark: str,
    model: str,
    *,
    backend: str | None = None,
    engine: str | None = None,
    dataset: str | None = None,
    judge: str | None = None,
    output_dir: Path | None = None,
    overrides: Overrides | None = None,
    custom: bool = False,
) -> PairRun:
    """One model × benchmark pair from names, resolved as a one-entry suite would be
    (engine → provider, the benchmark's default backend and dataset). `custom`: the name
    may be one no benchmark has (your own dataset and scorer run under it)."""
    own = custom and BENCHMARKS.get(benchmark) is None
    stand_in = BENCHMARKS.names()[0] if own else benchmark
    entry: dict[str, Any] = {"name": stand_in}
    if own:
        entry["backend"] = backend or "direct"
    if backend is not None:
        entry["backend"] = backend
    if dataset is not None:
        entry["dataset"] = dataset
    suite = Suite(
        path=Path.cwd() / f"{benchmark}.toml",
        meta={"name": benchmark},
        defaults={},
        judge={"model": judge} if judge else {},
        run={"output_dir": str(output_dir)} if output_dir is not None else {},
        models=[{"name": model, **({"engine": engine} if engine else {})}],
        benchmarks=[entry],
    )
    (pair,) = expand(suite, overrides)
    return replace(pair, benchmark=benchmark) if own else pair


class EvalRunner:
    """Runs one benchmark for one model, as the seed's EvalRunner."""

    def __init__(
        self,
        config: PairRun,
        dataset: DatasetProvider,
        backend: InferenceBackend | str | Any | None = None,
        scorer: Any = None,
    ) -> None:
        self._config = config
        self._dataset = dataset
        self._backend = backend
        self._scorer = scorer
        self.outcome: PairOutcome | None = None

    @property
    def results(self) -> list[dict[str, Any]]:
        """The record lines of the last run (a copy)."""
        path = self._config.records_path
        return read_records(path) if path.is_file() else []

    def run(
        self, progress_callback: Progress | None = None, *, handle_sigint: bool = False
    ) -> dict[str, Any]:
        """Load the dataset (max_samples, split, seed), run every record, return the
        summary. `progress_callback(completed, total)` after each record."""
        cfg = self._config
        self._dataset.load(max_samples=cfg.max_samples, split=cfg.split, seed=cfg.seed)
        hooks = _progress_hooks(progress_callback) if progress_callback else None
        self.outcome = run_benchmark(
            cfg, self._dataset, self._backend, self._scorer, hooks=hooks,
            handle_sigint=handle_sigint,
        )  # fmt: skip
        return self.outcome.summary


def _progress_hooks(callback: Progress) -> RunHooks:
    state = {"done": 0, "total": 0}

    def start(total: int, done: int) -> None:
        state.update(total=total, done=done)

    def trial(_line: ResultLine) -> None:
        state["done"] += 1
        callback(state["done"], state["total"])

    return RunHooks(start=start, trial=trial)
