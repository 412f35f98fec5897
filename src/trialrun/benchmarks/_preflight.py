"""A suite's preflight: every configuration problem of every pair found before the first
run starts (an unknown backend, a model or judge that cannot be made, a missing key, a
dataset that does not load), so a suite is never refused after some runs went. The
output folders are checked first of all (`check_output_dir`).

The datasets loaded here are the ones the runs use (loaded once per benchmark, source,
split, sample count and seed). A judge that is also a model under test is allowed, as the
seed allows it, with one warning about self-preference.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.benchmarks._catalogue import dataset_for, find_benchmark
from trialrun.benchmarks._datasets import DatasetProvider
from trialrun.benchmarks._suite import PairRun, unknown_benchmark_problem
from trialrun.benchmarks.backends import BACKENDS
from trialrun.core import model_label
from trialrun.errors import UserError
from trialrun.judge import JudgeSettings, create_judge, self_judge_warning
from trialrun.models import ProviderSettings, create_model

DatasetKey = tuple[Any, ...]


def dataset_key(pair: PairRun) -> DatasetKey:
    return (pair.benchmark, pair.dataset, pair.split, pair.max_samples, pair.seed, pair.subset)


@dataclass(slots=True)
class Preflight:
    """What the checks found: the loaded datasets, warnings (each once), and each refused
    pair's problem (by its position in the pairs)."""

    datasets: dict[DatasetKey, DatasetProvider] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    problems: dict[int, str] = field(default_factory=dict)

    def problem_line(self) -> str:
        """One UserError text for every distinct problem, in pair order (a problem shared
        by several pairs, e.g. one dataset for every model, is named once)."""
        distinct = list(dict.fromkeys(self.problems.values()))
        if len(distinct) == 1:
            return distinct[0]
        return f"{len(distinct)} problems, found before any run (nothing ran): " + "; ".join(
            distinct
        )


class _Checks:
    """Each distinct thing checked once: output folders, model and judge specs, datasets."""

    def __init__(self, providers: ProviderSettings) -> None:
        self.providers = providers
        self.done: dict[tuple[str, Any], str | None] = {}
        self.datasets: dict[DatasetKey, DatasetProvider] = {}

    def once(self, kind: str, key: Any, check: Any) -> str | None:
        if (kind, key) not in self.done:
            try:
                check()
                self.done[(kind, key)] = None
            except UserError as exc:
                self.done[(kind, key)] = str(exc)
        return self.done[(kind, key)]

    def model(self, spec: str) -> str | None:
        return self.once("model", spec, lambda: create_model(spec, settings=self.providers))

    def judge(self, spec: str) -> str | None:
        return self.once("judge", spec, lambda: create_judge(spec, JudgeSettings(), self.providers))

    def dataset(self, pair: PairRun) -> str | None:
        key = dataset_key(pair)

        def load() -> None:
            factory = find_benchmark(pair.benchmark)
            if factory is None:
                raise UserError(unknown_benchmark_problem(pair.benchmark))
            if getattr(factory, "episodic", False):  # its checkout loads with its episodes
                factory().episodes(pair)
                return
            loaded = dataset_for(factory(), pair.dataset, base=pair.base, subset=pair.subset)
            loaded.load(pair.max_samples, pair.split, pair.seed)
            if not loaded.size():
                raise UserError(
                    f"benchmark {pair.benchmark}: no records in its dataset (after its "
                    "filters); check dataset and split"
                )
            self.datasets[key] = loaded

        return self.once("dataset", key, load)


def check_output_dir(out: Path) -> None:
    """Made and written to once before any work (a dataset load, a trial): a folder under
    /proc or on a read-only mount is one line, not a traceback after the first trial."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".trialrun-probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UserError(
            f"output_dir {out}: cannot write there ({exc.strerror or exc}); set [run] "
            "output_dir (or --out) to a writable folder"
        ) from None


def preflight(pairs: list[PairRun], providers: ProviderSettings | None = None) -> Preflight:
    """Check every pair of a suite; nothing runs. Datasets load only for pairs whose other
    settings passed (a missing key is found without a download). `providers`: the
    project's settings for model clients, as the runs get them (None: the defaults)."""
    checks = _Checks(providers or ProviderSettings())
    found = Preflight()
    for index, pair in enumerate(pairs):
        problem = (
            _backend_problem(pair)
            or checks.model(pair.model_spec)
            or (checks.judge(pair.judge_spec) if pair.judge_spec else None)
        )
        if problem is None and pair.task_folder is None:
            problem = checks.dataset(pair)
        if problem is not None:
            found.problems[index] = problem
        judge = pair.judge_spec
        if judge and pair.task_folder is None and model_label(judge) == model_label(
            pair.model_spec
        ):
            warning = self_judge_warning(judge)
            if warning not in found.warnings:
                found.warnings.append(warning)
    found.datasets = checks.datasets
    return found


def _backend_problem(pair: PairRun) -> str | None:
    if pair.backend in BACKENDS:
        return None
    return f"backend '{pair.backend}': unknown; known: {', '.join(BACKENDS)}"
