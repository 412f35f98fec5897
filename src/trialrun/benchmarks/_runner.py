"""Run a suite: each model × benchmark pair through `trialrun.run` (k trials, one task per
record), per-record lines appended as trials finish, then the pair's summary.

Layout under `output_dir`: `{benchmark}_{model-slug}.jsonl` and `.summary.json` beside
`runs/{benchmark}_{model-slug}/<run-id>/`, trialrun's usual run folder (the source of
truth: the per-record file is derived from it). A rerun resumes the pair's last run
folder when its records are the same, so finished records are never run again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trialrun.benchmarks._backend_model import backend_spec
from trialrun.benchmarks._catalogue import dataset_for, find_benchmark
from trialrun.benchmarks._datasets import LOCAL_SUFFIXES, DatasetProvider
from trialrun.benchmarks._preflight import check_output_dir, dataset_key, preflight
from trialrun.benchmarks._records import read_records, record_line, summarize_records
from trialrun.benchmarks._scorers import keep_scorer
from trialrun.benchmarks._suite import (
    Overrides,
    PairRun,
    Suite,
    expand,
    load_suite,
    suite_line,
    unknown_benchmark_problem,
)
from trialrun.benchmarks._tasks import record_tasks
from trialrun.benchmarks._types import BENCHMARKS, Benchmark, InferenceBackend, Record, Scorer
from trialrun.benchmarks.backends import BACKENDS
from trialrun.config import ProjectConfig, load_config
from trialrun.core import model_label, redacted_json
from trialrun.errors import UserError
from trialrun.judge import JudgeSettings
from trialrun.models import ProviderSettings
from trialrun.rundir import (
    ResultLine,
    RunDir,
    RunDirLimits,
    loads_limited,
    write_json_atomic,
    write_text_atomic,
)
from trialrun.runner import NeverStop, Run, RunConfig, RunHooks, StopPlan, StopRule, run

Echo = Callable[[str], None]


def _record_json(line: dict[str, Any]) -> str:
    """One per-record line, redacted as every results line is."""
    return redacted_json(lambda data: json.dumps(data, ensure_ascii=False), line)


@dataclass(slots=True)
class PairOutcome:
    pair: PairRun
    summary: dict[str, Any]
    run_dir: Path
    interrupted: bool = False
    resumed: bool = False
    warnings: list[str] = field(default_factory=list)


def _last_run(root: Path) -> Path | None:
    if not root.is_dir():
        return None
    runs = sorted(p for p in root.iterdir() if p.is_dir() and (p / "run.json").is_file())
    return runs[-1] if runs else None


SETTINGS = (
    "backend", "temperature", "max_tokens", "seed", "judge", "dataset", "split", "trials"
)


def _same_settings(pair: PairRun) -> bool:
    """The pair's last summary (if any) was made with the same settings."""
    try:
        old = loads_limited(pair.summary_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # UnicodeDecodeError and past json's limits too
        return True  # killed before its summary: the run folder decides
    new = {**_settings(pair, None), "backend": pair.backend}
    if isinstance(old, dict):
        old.setdefault("trials", 1)  # a summary from before `trials`: one trial a record
    return isinstance(old, dict) and all(old.get(k) == new.get(k) for k in SETTINGS)


def _resumable(pair: PairRun, root: Path, task_ids: list[str]) -> Path | None:
    """The pair's last run folder when it ran these records for this model with these
    settings, else None (a new run folder)."""
    model, folder = pair.model_spec, pair.task_folder
    last = _last_run(root)
    if last is None or not _same_settings(pair):
        return None
    try:
        manifest = RunDir.open(last).manifest()
    except UserError:
        return None
    if manifest.models != [model_label(model)]:
        return None
    if folder is not None:
        return last if manifest.paths == [str(folder.resolve())] else None
    old = sorted(str(t.get("task_id")) for t in manifest.tasks)
    return last if old == sorted(task_ids) else None


def _scoring(records: list[Record]) -> dict[str, dict[str, Any]]:
    return {r.task_id or r.record_id: r.scoring_data() for r in records}


class _RecordWriter:
    """Appends one record line per finished trial to the per-record file, flushed."""

    def __init__(
        self, pair: PairRun, records: dict[str, dict[str, Any]], category: str
    ) -> None:
        self.pair = pair
        self.records = records
        self.category = category
        self.handle: Any = None

    def line(self, result: ResultLine) -> dict[str, Any]:
        record = self.records.get(result.task_id, {"record_id": result.task_id})
        return record_line(
            result,
            benchmark=self.pair.benchmark,
            model=self.pair.model_name,
            backend=self.pair.backend,
            record=record,
            category=self.category,
        )

    def start(self, existing: list[ResultLine]) -> None:
        path = self.pair.records_path
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(_record_json(self.line(r)) + "\n" for r in existing)
        write_text_atomic(path, text)
        self.handle = path.open("a", encoding="utf-8")

    def trial(self, result: ResultLine) -> None:
        if self.handle is not None:
            self.handle.write(_record_json(self.line(result)) + "\n")
            self.handle.flush()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def run_benchmark(
    pair: PairRun,
    dataset: DatasetProvider | None = None,
    backend: str | InferenceBackend | None = None,
    scorer: Benchmark | Scorer | Any | None = None,
    *,
    hooks: RunHooks | None = None,
    argv: list[str] | None = None,
    handle_sigint: bool = True,
    project: ProjectConfig | None = None,
) -> PairOutcome:
    """Run one model × benchmark pair: (config, dataset, backend, scorer) → its summary.

    `dataset` defaults to the pair's source. `backend`: a name (`direct`/`agent`; default
    the pair's), or an `InferenceBackend` object, which then answers every record as the
    pair's model. `scorer`: default the registered benchmark of that name; any other
    scorer object (trialrun's or the seed's shape) grades the records in its place.
    `project`: the trialrun.toml in force (default: found from the working directory)."""
    project = project if project is not None else load_config()
    backend = _backend_of(pair, backend)
    check_output_dir(pair.output_dir)
    pair.backend = backend
    records, tasks, agent, category = _records_and_tasks(pair, dataset, scorer, backend)
    root = pair.output_dir / "runs" / pair.stem
    ids = [t.task_id for t in tasks] if pair.task_folder is None else []
    resume = _resumable(pair, root, ids)
    category = (category if pair.task_folder is None else "") or pair.benchmark
    writer = _RecordWriter(pair, _scoring(records), category)
    limits = RunDirLimits.of(project)
    writer.start(RunDir.open(resume, limits=limits).results() if resume is not None else [])
    given = hooks or RunHooks()

    def on_trial(line: ResultLine) -> None:
        writer.trial(line)
        if given.trial:
            given.trial(line)

    config = RunConfig(
        tasks=tasks,
        models=[pair.model_spec],
        k=pair.trials,
        judge=pair.judge_spec,
        agent=agent,
        out=root,
        resume=resume,
        concurrency=pair.max_workers,
        argv=argv,
        handle_sigint=handle_sigint,
        self_judge=True,  # allowed with a warning, as in the seed (its example does it)
        project=project,
        # [judge] max_tokens / temperature of the suite: this pair's judge calls only
        judge_settings=replace(JudgeSettings.from_config(project), **_judge_changes(pair)),
    )
    try:
        outcome = run(config, hooks=RunHooks(given.start, on_trial, given.loaded),
                      stop_rules=every_trial)  # fmt: skip
    finally:
        writer.close()
    summary = _pair_summary(pair, outcome, category, backend)
    return PairOutcome(
        pair, summary, outcome.path, outcome.interrupted, resume is not None, outcome.warnings
    )


def every_trial(plan: StopPlan, warnings: list[str]) -> StopRule:
    """Early stop, when trialrun.toml turns it on, is not for a benchmark pair: its pass^k
    and solve^k are exact means over every record's k trials (`hat_k`), and a record
    stopped at its first wrong answer would drop out of them as 'short'."""
    warnings.append(
        "early stop: not for a benchmark pair (its pass^k and solve^k need all k trials of "
        "every record); every trial runs"
    )
    return NeverStop()


def _backend_of(pair: PairRun, backend: str | InferenceBackend | None) -> str:
    """The backend's name (an `InferenceBackend` object answers as the pair's model,
    through `direct`); an unknown name is refused."""
    if backend is not None and not isinstance(backend, str):
        pair.model_spec = backend_spec(backend, pair.model_name)
        backend = "direct"
    backend = backend or pair.backend
    if backend not in BACKENDS:
        raise UserError(f"backend '{backend}': unknown; known: {', '.join(BACKENDS)}")
    return backend


def _records_and_tasks(
    pair: PairRun,
    dataset: DatasetProvider | None,
    scorer: Benchmark | Scorer | Any | None,
    backend: str,
) -> tuple[list[Record], list[Any], str | None, str]:
    """The pair's records, the tasks that run them, the agent and the category: a task
    folder as it is, an episodic benchmark's episodes, or one task per dataset record."""
    records: list[Record] = []
    tasks: list[Any]
    category = ""
    if pair.task_folder is not None:
        tasks = [pair.task_folder]
        agent = pair.agent
    else:
        bench, custom = _bench_and_scorer(pair, scorer, dataset)
        category = bench.category
        if bench.episodic:  # whole episodes: the benchmark builds its tasks
            records, tasks = bench.episodes(pair)
            agent = pair.agent  # None: the built-in tool loop
        else:
            if dataset is None:
                dataset = dataset_for(bench, pair.dataset, base=pair.base, subset=pair.subset)
                dataset.load(pair.max_samples, pair.split, pair.seed)
            records = list(dataset.iter_records())
            judged = pair.judge_spec is not None
            tasks = record_tasks(bench, records, pair, judged=judged, scorer=custom)
            agent = pair.agent or BACKENDS[backend]
        if not records:
            raise UserError(
                f"benchmark {pair.benchmark}: no records in its dataset (after its filters); "
                "check dataset and split"
            )
    return records, tasks, agent, category


def _pair_summary(pair: PairRun, outcome: Run, category: str, backend: str) -> dict[str, Any]:
    """The pair's `.summary.json` (written), from its per-record file and its run."""
    rundir = RunDir.open(outcome.path)
    summary = summarize_records(
        read_records(pair.records_path),
        **_settings(pair, rundir.manifest().started_at),
        run_dir=str(outcome.path),
    )
    if summary["benchmark"] is None:  # nothing finished yet: still name the pair
        summary.update(
            benchmark=pair.benchmark, category=category, model=pair.model_name, backend=backend
        )
    summary.update(_k_figures(pair, outcome.summary.aggregate.get(pair.model_spec) or {}))
    write_json_atomic(pair.summary_path, summary)
    return summary


def _k_figures(pair: PairRun, aggregate: dict[str, Any]) -> dict[str, Any]:
    """k and the run's per-task means of solve^k and pass^k (completed), as `summarize`."""
    return {
        "k": pair.trials,
        "tasks": aggregate.get("tasks"),
        "solve_k_rate": aggregate.get("solve_k_rate"),
        "pass_k_rate": aggregate.get("pass_k_rate"),
    }


def unix_time(iso: str | None) -> float | None:
    """An ISO-8601 time (run.json's `started_at`) as a Unix timestamp; None if it is none."""
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _bench_and_scorer(
    pair: PairRun, scorer: Any, dataset: DatasetProvider | None
) -> tuple[Benchmark, str | None]:
    """The benchmark whose prompts the records get, and the key of a custom scorer (None:
    the registered benchmark of the pair's name scores, as in any suite)."""
    factory = find_benchmark(pair.benchmark)
    if isinstance(scorer, Benchmark):
        registered = factory is not None and type(scorer) is factory
        return scorer, None if registered else keep_scorer(scorer, pair.benchmark)
    if factory is not None:
        return factory(), None if scorer is None else keep_scorer(scorer, pair.benchmark)
    if scorer is None or dataset is None:
        raise UserError(
            unknown_benchmark_problem(pair.benchmark)
            + " (or pass a dataset and a scorer of your own)"
        )
    plain: Benchmark = type("CustomBenchmark", (Benchmark,), {"name": pair.benchmark})()
    return plain, keep_scorer(scorer, pair.benchmark)


def _judge_changes(pair: PairRun) -> dict[str, Any]:
    """The suite's `[judge]` values that replace the judge settings for one pair."""
    changes: dict[str, Any] = {}
    if pair.judge_max_tokens is not None:
        changes["max_tokens"] = pair.judge_max_tokens
    if pair.judge_temperature is not None:
        changes["temperature"] = pair.judge_temperature
    return changes


def _settings(pair: PairRun, started_at: str | None) -> dict[str, Any]:
    """The summary's settings and times: `started_at` / `ended_at` are Unix timestamps, as
    the seed's RunSummary has them; the ISO texts stay beside them as `…_iso`."""
    ended = time.time()
    return {
        "started_at": unix_time(started_at),
        "ended_at": ended,
        "started_at_iso": started_at,
        "ended_at_iso": datetime.fromtimestamp(ended, UTC).isoformat(timespec="seconds"),
        "model_spec": model_label(pair.model_spec),
        "dataset": pair.dataset,
        "split": pair.split,
        "max_samples": pair.max_samples,
        "seed": pair.seed,
        "temperature": pair.temperature,
        "max_tokens": pair.max_tokens,
        "judge": model_label(pair.judge_spec) if pair.judge_spec else None,
        "trials": pair.trials,
    }


def _k_line(summary: dict[str, Any]) -> str:
    def share(value: Any) -> str:
        return "–" if value is None else f"{value:.1%}"

    return (
        f"; k={summary['k']} over {summary['tasks']} task(s): solve^k "
        f"{share(summary['solve_k_rate'])}, pass^k (completed) {share(summary['pass_k_rate'])}"
    )


def pair_line(outcome: PairOutcome) -> str:
    """One line per finished pair: accuracy with its interval, errors, where it is."""
    s = outcome.summary
    if s["accuracy"] is None:
        figure = "no scored records"
    else:
        low, high = s["accuracy_ci95"]
        figure = (
            f"accuracy {s['accuracy']:.1%} ({s['correct']}/{s['scored_samples']} scored, "
            f"95% CI {low:.1%}–{high:.1%})"
        )
    if outcome.pair.trials > 1:
        figure += _k_line(s)
    resumed = " (resumed)" if outcome.resumed else ""
    return (
        f"{outcome.pair.benchmark} × {outcome.pair.model_name}{resumed}: {figure}, "
        f"errors {s['errors']} → {outcome.pair.records_path}"
    )


def run_pairs(
    pairs: list[PairRun],
    echo: Echo,
    *,
    argv: list[str] | None = None,
    keep_going: bool = False,
    hooks_for: Callable[[PairRun], RunHooks] | None = None,
    handle_sigint: bool = True,
    project: ProjectConfig | None = None,
) -> list[PairOutcome]:
    """Run pairs in order; stop at an interrupt. Every pair is checked before the first
    runs (`preflight`): a problem refuses the suite before anything ran. `keep_going`: a
    pair with a problem, or that fails with a UserError, is reported and the rest still
    run (then one UserError lists the failures). `project`: the trialrun.toml every pair
    uses (default: found from the working directory, once)."""
    project = project if project is not None else load_config()
    for out in dict.fromkeys(pair.output_dir for pair in pairs):
        check_output_dir(out)
    noted: set[str] = set()

    def warn(note: str) -> None:
        if note not in noted:
            noted.add(note)
            echo(f"warning: {note}")

    for pair in pairs:  # every note and warning before anything runs
        for note in pair.notes:
            warn(note)
    checked = preflight(pairs, ProviderSettings.from_config(project))
    for warning in checked.warnings:
        warn(warning)
    if checked.problems and not keep_going:
        raise UserError(checked.problem_line())
    outcomes: list[PairOutcome] = []
    failures: list[str] = []
    for index, pair in enumerate(pairs):
        try:
            if index in checked.problems:
                raise UserError(checked.problems[index])
            dataset = None
            if pair.task_folder is None:
                dataset = checked.datasets.get(dataset_key(pair))
            hooks = hooks_for(pair) if hooks_for else None
            outcome = run_benchmark(
                pair, dataset, hooks=hooks, argv=argv, handle_sigint=handle_sigint,
                project=project,
            )
        except UserError as exc:
            if not keep_going:
                raise
            failures.append(f"{pair.benchmark} × {pair.model_name}: {exc}")
            echo(f"error: {pair.benchmark} × {pair.model_name}: {exc}")
            continue
        outcomes.append(outcome)
        for warning in outcome.warnings:
            warn(warning)
        echo(pair_line(outcome))
        if outcome.interrupted:
            break
    if failures:
        raise UserError(f"{len(failures)} run(s) failed: " + "; ".join(failures))
    return outcomes


def run_suite(
    path: Path | str,
    overrides: Overrides | None = None,
    echo: Echo = print,
    *,
    argv: list[str] | None = None,
    hooks_for: Callable[[PairRun], RunHooks] | None = None,
) -> list[PairOutcome]:
    """Load, check and expand a suite file, print the Suite line, run every pair."""
    suite = load_suite(path)
    for warning in suite.warnings:
        echo(f"warning: {warning}")
    pairs = expand(suite, overrides)
    echo(suite_line(suite, pairs))
    return run_pairs(pairs, echo, argv=argv, hooks_for=hooks_for)


def all_benchmarks_suite(
    models: list[str],
    *,
    judge: str | None,
    output_dir: Path,
    base: Path | None = None,
    engine: str | None = None,
    datasets: dict[str, str] | None = None,
) -> Suite:
    """An in-memory suite: every built-in benchmark, on its local copy in `datasets`
    (benchmark → path) when there is one, else its default dataset; `engine` for every
    model (as a suite's `[[models]] engine`)."""
    if not models:
        raise UserError("run-all: give at least one model with -m SPEC")
    base = base or Path.cwd()
    local = datasets or {}
    unknown = sorted(set(local) - set(BENCHMARKS.names()))
    if unknown:
        raise UserError(
            f"--dataset {unknown[0]}=…: no such benchmark; known: {', '.join(BENCHMARKS.names())}"
        )
    return Suite(
        path=base / "run-all",
        meta={"name": "run-all"},
        defaults={},
        judge={"model": judge} if judge else {},
        run={"output_dir": str(output_dir)},
        models=[{"name": m, **({"engine": engine} if engine else {})} for m in models],
        # an episodic benchmark needs its environment (a checkout): not here
        benchmarks=[
            {"name": name, **({"dataset": local[name]} if name in local else {})}
            for name, factory in BENCHMARKS
            if not getattr(factory, "episodic", False)
        ],
    )


def local_copies(folder: Path) -> dict[str, str]:
    """Each built-in benchmark's local copy in `folder`: NAME.jsonl / .csv / .parquet /
    .json, or a folder NAME/ (benchmarks without one keep their hub dataset)."""
    if not folder.is_dir():
        raise UserError(f"--data-dir {folder}: no such folder")
    found: dict[str, str] = {}
    for name in BENCHMARKS.names():
        candidates = [folder / f"{name}{suffix}" for suffix in LOCAL_SUFFIXES]
        candidates.append(folder / name)
        hit = next((c for c in candidates if c.exists()), None)
        if hit is not None:
            found[name] = str(hit.resolve())
    return found


def run_all(
    models: list[str],
    *,
    max_samples: int | None = None,
    judge: str | None = None,
    output_dir: Path = Path("results"),
    overrides: Overrides | None = None,
    echo: Echo = print,
    argv: list[str] | None = None,
    engine: str | None = None,
    datasets: dict[str, str] | None = None,
) -> list[PairOutcome]:
    """Every built-in benchmark × `models`; a benchmark that cannot load is reported and
    the others still run. `datasets`: local copies by benchmark name; `engine`: every
    model's engine."""
    suite = all_benchmarks_suite(
        models, judge=judge, output_dir=output_dir, engine=engine, datasets=datasets
    )
    over = overrides or Overrides()
    if max_samples is not None:
        over.max_samples = max_samples
    pairs = expand(suite, over)
    echo(suite_line(suite, pairs))
    return run_pairs(pairs, echo, argv=argv, keep_going=True)
