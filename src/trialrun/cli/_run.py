"""`trialrun run`, `trialrun summarize`, `trialrun show`: thin over the public API."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from trialrun.cli._run_options import (
    AGENT,
    AGENT_API,
    AGENT_CMD,
    ALLOW_EXTERNAL_LINKS,
    AS_JSON,
    BACKEND,
    BASELINES,
    BENCH,
    CONCURRENCY,
    EARLY_STOP,
    ENV,
    EXECUTOR,
    JUDGE,
    JUNIT,
    KEEP_ARTIFACTS,
    MARKDOWN,
    MAX_SAMPLES,
    MAX_TOKENS,
    MODEL,
    OUT,
    PATHS,
    PROCESSES,
    RAY_ADDRESS,
    RESUME,
    SEED,
    SHOW_ALL,
    SKIP_INVALID,
    SPLIT,
    STORE,
    SUITE,
    SUITE_CONFIG,
    TAG,
    TASK,
    TEMPERATURE,
    TIER,
    TRIGGER,
    USER_MODEL,
    K,
)
from trialrun.core import redact

if TYPE_CHECKING:
    from rich.console import Console

    from trialrun import AfterRun, RunConfig
    from trialrun.cli._power_estimate import PowerEstimate
    from trialrun.rundir import ResultLine, RunDir, RunDirLimits, Summary
    from trialrun.runner import Run
    from trialrun.tracking import CompareSettings
    from trialrun.workflow import FollowUp


def _print_comparison(follow_up: FollowUp, console: Console) -> None:
    """After a completed run: the regressions-only comparison with each model's baseline
    (a damaged baseline is a warning: the run still exits 0)."""
    from trialrun.reports import render_comparisons

    if follow_up.comparison_error is not None:
        print(f"warning: baseline comparison skipped: {follow_up.comparison_error}",
              file=sys.stderr)
        return
    console.print()
    render_comparisons(follow_up.comparisons or [], console)
    for note in follow_up.notes:
        print(f"note: {note}", file=sys.stderr)


def _json_run(outcome: Run, follow_up: FollowUp) -> None:
    """`trialrun run --json`: the summary, the warnings and the baseline comparison."""
    extra: dict[str, Any] = {}
    if follow_up.comparison_error is not None:
        outcome.warnings.append(f"baseline comparison skipped: {follow_up.comparison_error}")
    elif follow_up.comparisons is not None:
        extra["baseline_comparison"] = [m.to_dict() for m in follow_up.comparisons]
        outcome.warnings.extend(follow_up.notes)
    _json_out(outcome.summary, outcome.path, outcome.warnings,
              interrupted=outcome.interrupted, **extra)  # fmt: skip


def _print_run(outcome: Run, follow_up: FollowUp, show_all: bool) -> None:
    """The end table, the warnings, the run folder, then the comparison (or how to resume)."""
    from rich.console import Console
    from rich.markup import escape

    from trialrun.reports import ROW_CAP, render_summary

    console = Console()
    render_summary(outcome.summary, console, limit=None if show_all else ROW_CAP)
    err = Console(stderr=True)
    for warning in outcome.warnings:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True)
    console.print(f"run: {outcome.path}", highlight=False, soft_wrap=True)
    if outcome.interrupted:
        err.print(
            f"interrupted: {outcome.summary.finished_trials} trial(s) kept; "
            f"resume with: trialrun run --resume {outcome.path}",
            highlight=False,
            soft_wrap=True,
        )
    else:
        _print_comparison(follow_up, console)


def _fail(message: str, code: int = 2) -> None:
    print(f"trialrun: {redact(message)}", file=sys.stderr)
    raise SystemExit(code)


def _json_out(summary: Summary, run_dir: Path | None, warnings: list[str], **extra: Any) -> None:
    where = None if run_dir is None else str(run_dir)
    doc = {**summary.to_json(), "run_dir": where, "warnings": list(warnings), **extra}
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def _results_file(path: Path) -> Path | None:
    """`path` when it is a results file to summarize on its own, else None (a folder, a
    run folder's own results.jsonl, or run.json/summary.json: RunDir.open answers those)."""
    from trialrun.rundir import RESULTS, RUN_JSON, SUMMARY

    if not path.is_file() or path.name in (RUN_JSON, SUMMARY):
        return None
    if path.name == RESULTS and (path.parent / RUN_JSON).is_file():
        return None
    return path


def _run_dir_of(path: Path) -> Path:
    """A run folder's results.jsonl stands for the folder."""
    from trialrun.rundir import RESULTS, RUN_JSON

    if path.is_file() and path.name == RESULTS and (path.parent / RUN_JSON).is_file():
        return path.parent
    return path


def _open_results_file(file: Path, limits: RunDirLimits) -> RunDir:
    """A results file read through RunDir's one reader (the same checks), with the
    run.json beside it when there is one. summarize never writes next to it."""
    from trialrun.rundir import Manifest, RunDir

    class ResultsFile(RunDir):
        @property
        def results_path(self) -> Path:
            return file

        def manifest(self) -> Manifest:
            return super().manifest() if self.manifest_path.is_file() else Manifest()

    return ResultsFile(file.parent, limits=limits)


ASSUMED_RATE = 0.9


class _Progress:
    """A rich progress bar on stderr, fed by the runner's hooks."""

    def __init__(self, settings: CompareSettings, resumed: bool = False) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]trials"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
            # not a terminal (CI logs, pipes): no bar, and no stray blank line at stop
            disable=not self.console.is_terminal,
        )
        self.task_id: Any = None
        self.started = False
        self.resumed = resumed
        self.settings = settings  # the project's [compare], for the power line
        self.estimate: PowerEstimate | None = None
        self.said: set[str] = set()  # errors the table cannot explain, printed once each

    def loaded(self, tasks: Sequence[Any], k: int | None) -> None:
        """The suite's power line (`trialrun plan` has the rest), computed beside the run
        (`_power_estimate`): the trials do not wait for it. A resumed run printed it when it
        began, so it is not computed again."""
        from trialrun.cli._power_estimate import PowerEstimate

        if self.resumed:
            return
        rows = [(k or task.k, ASSUMED_RATE) for task in tasks]
        self.estimate = PowerEstimate(rows, self.settings.alpha, self.settings.method, self._say)
        self.estimate.start()

    def _say(self, line: str) -> None:
        if line.startswith("power:"):
            line = f"{line}, at an assumed {ASSUMED_RATE:.0%} solve rate"
        self.console.print(line, highlight=False, soft_wrap=True)

    def settle_estimate(self, *, wait: bool) -> None:
        """The power line, if it is not out yet: waited for within its budget (`wait`),
        else dropped; its process is stopped either way."""
        if self.estimate is not None:
            self.estimate.settle(wait=wait)

    def start(self, total: int, done: int) -> None:
        self.progress.start()
        self.started = True
        self.task_id = self.progress.add_task("trials", total=total, completed=done, last="")

    def trial(self, line: ResultLine) -> None:
        from trialrun.agents import NOT_SERVED_PREFIX

        mark = "!" if line.is_infra else {True: "✓", False: "✗", None: "?"}[line.solve]
        self.progress.update(self.task_id, advance=1, last=f"{mark} {line.task_id}#{line.trial}")
        message = str((line.error or {}).get("message", ""))
        if line.is_infra and message.startswith(NOT_SERVED_PREFIX):
            key = message  # the run's set-up: one line, not one per trial
        elif line.error_kind == "context_overflow":
            key = f"context_overflow {line.task_id}"  # the model cannot take the prompt
        elif line.error_kind == "model_timeout":
            key = "model_timeout"  # the table says model_timeout×N; the message says what to do
        else:
            return
        if key not in self.said:
            self.said.add(key)
            self.console.print(
                f"trialrun: {line.task_id}#{line.trial}: {redact(message)}",
                highlight=False, markup=False, soft_wrap=True,
            )  # fmt: skip

    def stop(self) -> None:
        """Idempotent; never started (an error before the first trial): prints nothing."""
        self.settle_estimate(wait=False)
        if self.started:
            self.started = False
            self.progress.stop()


def run(
    paths: list[Path] = PATHS,
    model: list[str] = MODEL,
    k: int = K,
    task: list[str] = TASK,
    suite: list[str] = SUITE,
    tier: list[str] = TIER,
    tag: list[str] = TAG,
    concurrency: int = CONCURRENCY,
    out: Path = OUT,
    resume: Path = RESUME,
    allow_external_links: bool = ALLOW_EXTERNAL_LINKS,
    keep_artifacts: bool = KEEP_ARTIFACTS,
    skip_invalid: bool = SKIP_INVALID,
    judge: str = JUDGE,
    agent: str = AGENT,
    agent_cmd: str = AGENT_CMD,
    agent_api: str = AGENT_API,
    baselines: Path = BASELINES,
    junit: Path = JUNIT,
    markdown: Path = MARKDOWN,
    as_json: bool = AS_JSON,
    suite_config: Path = SUITE_CONFIG,
    temperature: float = TEMPERATURE,
    max_tokens: int = MAX_TOKENS,
    seed: int = SEED,
    max_samples: int = MAX_SAMPLES,
    split: str = SPLIT,
    user_model: str = USER_MODEL,
    env: Path = ENV,
    bench: str = BENCH,
    backend: str = BACKEND,
    trigger: str = TRIGGER,
    store: str = STORE,
    show_all: bool = SHOW_ALL,
    early_stop: bool = EARLY_STOP,
    executor: str = EXECUTOR,
    ray_address: str = RAY_ADDRESS,
    processes: str = PROCESSES,
) -> None:
    """Run tasks × models × k trials; write results/<run-id>/ and print the end table.

    With a suite config (`--config suite.toml`, or `trialrun run suite.toml`) it runs
    the suite's models × benchmarks instead (see docs/how-to/benchmark-suites.md).
    """
    from trialrun import AfterRun, Filters, RunConfig, UserError
    from trialrun.config import load_config

    generation = {
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
        "max_samples": max_samples,
        "split": split,
        "user_model": user_model,
        "env": str(env) if env is not None else None,
    }
    _benchmark_mode(suite_config, paths, bench, backend, judge, generation,
                    models=list(model or []), out=out, concurrency=concurrency, as_json=as_json,
                    trials=k)  # fmt: skip
    if not paths and resume is None:
        _fail("no task paths given; pass task files or folders (or --resume RUN_DIR)")
    try:
        project = load_config()  # the command's one look: the run and what follows it share it
        config = RunConfig(
            tasks=list(paths or []), models=list(model or []), k=k, project=project,
            filters=Filters(list(task or []), list(suite or []), list(tier or []), list(tag or [])),
            judge=judge, agent=agent, agent_cmd=agent_cmd, agent_api=agent_api,
            keep_artifacts=keep_artifacts, allow_external_links=allow_external_links,
            out=out or Path("results"), resume=resume, concurrency=concurrency,
            skip_invalid=skip_invalid, argv=["trialrun", *sys.argv[1:]], early_stop=early_stop,
            baselines=baselines, executor=executor, ray_address=ray_address, processes=processes,
        )  # fmt: skip
    except UserError as exc:
        _fail(exc.describe(), exc.exit_code)
        return
    after = AfterRun(junit=junit, markdown=markdown, record=True, store=store,
                     trigger=trigger, compare=True, baselines=baselines)  # fmt: skip
    _run_and_print(config, after, as_json=as_json, show_all=show_all)


def _benchmark_mode(
    suite_config: Path | None,
    paths: list[Path] | None,
    bench: str | None,
    backend: str | None,
    judge: str | None,
    generation: dict[str, Any],
    **common: Any,
) -> None:
    """A suite config or one benchmark runs here and exits; the suite-only options are
    refused for task files."""
    from trialrun.cli._benchmarks import run_benchmark_command, run_suite_command, suite_of

    suite_file = suite_of(suite_config, paths)
    if suite_file is not None:
        run_suite_command(suite_file, **common, **generation)
    if bench is not None or backend is not None:  # one benchmark, no suite file
        run_benchmark_command(bench, backend, paths, judge=judge, **common, **generation)
    given = [f"--{k.replace('_', '-')}" for k, v in generation.items() if v is not None]
    if given:
        _fail(f"{', '.join(given)}: only for a suite config; run `trialrun run suite.toml`")


def _run_and_print(config: RunConfig, after: AfterRun, *, as_json: bool, show_all: bool) -> None:
    """Run with a progress bar (none with --json), then the end table or the JSON; exits
    130 when interrupted, else 0."""
    from trialrun import FollowUp, RunHooks, UserError
    from trialrun import run as run_eval
    from trialrun.config import ProjectConfig
    from trialrun.tracking import CompareSettings
    from trialrun.workflow import FollowUpInterrupted

    settings = CompareSettings.of(config.project or ProjectConfig())
    progress = None if as_json else _Progress(settings, resumed=config.resume is not None)
    hooks = (
        RunHooks(progress.start, progress.trial, progress.loaded) if progress else RunHooks()
    )
    try:
        if config.judge:
            from trialrun.judge import check_judge_spec

            check_judge_spec(config.judge)
        outcome = run_eval(config, hooks=hooks, after=after)
        if progress:
            progress.settle_estimate(wait=not outcome.interrupted)
    except UserError as exc:
        if progress:
            progress.stop()
        _fail(exc.describe(), exc.exit_code)
        return
    except FollowUpInterrupted as exc:
        if progress:
            progress.stop()
        _fail(f"interrupted after the run: its results are kept in {exc.run_dir}; the "
              "steps after it (history record, JUnit, Markdown, compare, gate) did not all "
              "run", 130)
        return
    except OSError as exc:  # e.g. the disk filled up while writing results
        if progress:
            progress.stop()
        where = exc.filename or config.out
        _fail(f"{where}: {exc.strerror or exc}; free space or pick another --out")
        return
    finally:
        if progress:
            progress.stop()
    follow_up = outcome.follow_up or FollowUp()
    outcome.warnings.extend(follow_up.warnings)
    if as_json:
        _json_run(outcome, follow_up)
    else:
        _print_run(outcome, follow_up, show_all)
    if outcome.interrupted:
        raise SystemExit(130)
    raise SystemExit(0)


def summarize(
    run_dir: Path = typer.Argument(
        ..., help="A run folder written by `trialrun run`, or a results .jsonl file."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    show_all: bool = typer.Option(
        False, "--all", help="Every task in the table (default: the 50 worst)."
    ),
) -> None:
    """Recompute summary.json from results.jsonl (and run.json) and print the table.

    A results file outside a run folder is summarized (with the run.json beside it,
    if any) and nothing is written next to it.
    """
    from rich.console import Console
    from rich.markup import escape

    from trialrun import RunDir, UserError
    from trialrun.cli._benchmarks import summarize_records_command
    from trialrun.config import load_config
    from trialrun.metrics import summarize_rundir
    from trialrun.reports import ROW_CAP, render_summary
    from trialrun.rundir import RunDirLimits

    summarize_records_command(run_dir, as_json)  # a benchmark's per-record file: exits
    lone = _results_file(run_dir)
    try:
        limits = RunDirLimits.of(load_config())  # the project's [rundir]
        rundir = (
            _open_results_file(lone, limits) if lone is not None
            else RunDir.open(_run_dir_of(run_dir), limits=limits)
        )
        summary = summarize_rundir(rundir)
    except UserError as exc:
        _fail(exc.describe(), exc.exit_code)
        return
    if lone is None:
        try:
            rundir.write_summary(summary)
        except OSError as exc:  # a read-only run folder: still print the figures
            summary.warnings.append(
                f"{rundir.summary_path}: not rewritten ({exc.strerror or exc})"
            )
    if as_json:
        if lone is not None:
            _json_out(summary, None, summary.warnings, results_file=str(lone))
        else:
            _json_out(summary, rundir.path, summary.warnings)
    else:
        console = Console()
        render_summary(summary, console, limit=None if show_all else ROW_CAP)
        err = Console(stderr=True)
        for warning in summary.warnings:
            err.print(
                f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True
            )
    raise SystemExit(0)


def show(
    run_dir: Path = typer.Argument(..., help="A run folder written by `trialrun run`."),
    task_id: str = typer.Argument(..., metavar="TASK", help="The task id."),
    trial: int = typer.Argument(0, metavar="[N]", help="Trial number (0-based)."),
    model: str = typer.Option(None, "--model", "-m", help="Model spec (when several ran)."),
    full: bool = typer.Option(False, "--full", help="Do not truncate tool results."),
) -> None:
    """Print one trial's transcript: messages, tool calls, results, answer, verdicts."""
    from difflib import get_close_matches

    from rich.console import Console

    from trialrun import RunDir, UserError
    from trialrun.config import load_config
    from trialrun.reports import render_transcript
    from trialrun.rundir import RunDirLimits

    known_ids: set[str] = set()
    matches = []
    try:  # streamed: only this task's lines are kept
        rundir = RunDir.open(run_dir, limits=RunDirLimits.of(load_config()))
        for x in rundir.iter_results():
            known_ids.add(x.task_id)
            if x.task_id == task_id:
                matches.append(x)
    except UserError as exc:
        _fail(exc.describe(), exc.exit_code)
        return
    if not matches:
        known = sorted(known_ids)
        hint = get_close_matches(task_id, known, n=1)
        if hint:
            fix = f"did you mean '{hint[0]}'?"
        elif known:
            more = f", … ({len(known)} in all)" if len(known) > 8 else ""
            shown = ", ".join(known[:8]) + more
            fix = f"tasks in this run: {shown}"
        else:
            fix = "no trial has finished in this run yet"
        _fail(f"{run_dir}: no trial of task '{task_id}'; {fix}")
    models = list(dict.fromkeys(x.model for x in matches))
    if model is None:
        model = models[0]
    elif model not in models:
        _fail(f"--model {model}: not in this run for '{task_id}'; ran: {', '.join(models)}")
    line = next((x for x in matches if x.model == model and x.trial == trial), None)
    if line is None:
        trials = sorted(x.trial for x in matches if x.model == model)
        _fail(f"{task_id}: no trial {trial} for {model}; finished trials: {trials}")
        return
    try:
        transcript = rundir.transcript(line)
    except UserError as exc:
        _fail(exc.describe(), exc.exit_code)
        return
    render_transcript(transcript, line, Console(), truncate=None if full else 800)
    raise SystemExit(0)


def register(app: typer.Typer) -> None:
    app.command()(run)
    app.command()(summarize)
    app.command()(show)
