"""`trialrun promote` and `trialrun demote`: policies changed by the record, in place."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from trialrun.cli._history import STORE_HELP
from trialrun.errors import UserError

if TYPE_CHECKING:
    from trialrun.config import ProjectConfig

BRANCH_HELP = ("Read this branch's runs (and those of unknown branch); default: the history "
               "branch in trialrun.toml, else main.")
ALL_BRANCHES_HELP = "Read the runs of every branch."


def _apply(store: Any, candidate: Any, *, dry_run: bool, verify: bool,
           given: list[str] | None = None) -> str:
    """Verify and rewrite one candidate; returns the line to print. `given`: the -m specs
    (a model's base URL; else the one its runs recorded)."""
    from trialrun.history import (
        read_policy,
        rerun_specs,
        set_policy,
        verify_pytest,
        verify_task,
    )

    c = candidate
    head = f"{c.test_id}: {c.from_policy} → {c.to_policy}"
    if not c.source or not Path(c.source).is_file():
        return f"skipped {head}: its file {c.source or '(unknown)'} is not here"
    written = read_policy(c.kind, c.source, c.test_id)
    if written is not None and written != c.from_policy:
        return f"skipped {head}: {c.source} already says {written}"
    if dry_run:
        return f"would {c.action} {head} ({c.source}; {c.reason})"
    if verify and c.action == "promote":
        try:
            specs = rerun_specs(store, c.test_id, c.models, given or [])
        except UserError as exc:  # a URL with credentials: this test waits, the others go on
            return f"not promoted {head}: {exc}"
        check = (verify_pytest(c.source, c.test_id, specs) if c.kind == "pytest"
                 else verify_task(c.source, c.test_id, specs, c.to_policy))
        if not check.ok:
            return f"not promoted {head}: the local re-run did not confirm it ({check.detail})"
        reason = f"{c.reason}; verified locally: {check.detail}"
    else:
        reason = c.reason
    set_policy(c.kind, c.source, c.test_id, c.to_policy)
    store.record_policy_change(
        action=c.action, test_id=c.test_id, kind=c.kind, source=c.source,
        from_policy=c.from_policy, to_policy=c.to_policy, models=c.models, reason=reason,
    )
    return f"{c.action}d {head} ({c.source}; {reason})"


def register(app: typer.Typer) -> None:
    @app.command()
    def promote(
        min_runs: int = typer.Option(10, "--min-runs", help="Nightly runs needed per model."),
        window: int = typer.Option(7, "--window", help="The last N nightly runs must pass."),
        model: list[str] = typer.Option(None, "--model", "-m",
                                        help="Enabled models (default: every model the test "
                                        "ran on nightly)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Say what would change."),
        verify: bool = typer.Option(True, "--verify/--no-verify",
                                    help="Re-run each test locally before promoting it."),
        branch: str = typer.Option(None, "--branch", help=BRANCH_HELP),
        all_branches: bool = typer.Option(False, "--all-branches", help=ALL_BRANCHES_HELP),
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Promote tests by their nightly record: USUALLY_PASSES → ALWAYS_PASSES after 100 %
        in the last --window runs (of at least --min-runs), USUALLY_FAILS → USUALLY_PASSES
        at 66 %; rewrites the policy in the task file or @eval_test in place. Reads the
        main branch's nightly runs."""
        from trialrun.config import load_config
        from trialrun.history import HistoryStore, main_branch, promotion_candidates

        if min_runs < 1 or window < 1:
            raise UserError("--min-runs and --window must be 1 or more")
        project = load_config()
        on = main_branch(branch, all_branches=all_branches, config=project)
        with HistoryStore.open(store, config=project) as history:
            found, notes = promotion_candidates(history, min_runs=min_runs, window=window,
                                                models=model or None, branch=on)
            for candidate in found:
                typer.echo(_apply(history, candidate, dry_run=dry_run, verify=verify,
                                  given=model))
        for note in notes:
            typer.echo(note)
        if not found:
            typer.echo("nothing to promote")

    @app.command()
    def demote(
        window: int = typer.Option(7, "--window", help="Look at the last N CI runs."),
        model: list[str] = typer.Option(None, "--model", "-m", help="Only these models."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Say what would change."),
        branch: str = typer.Option(None, "--branch", help=BRANCH_HELP),
        all_branches: bool = typer.Option(False, "--all-branches", help=ALL_BRANCHES_HELP),
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Demote ALWAYS_PASSES tests that failed in the main branch's CI runs to
        USUALLY_PASSES, in place."""
        from trialrun.config import load_config
        from trialrun.history import HistoryStore, demotion_candidates, main_branch

        if window < 1:
            raise UserError("--window must be 1 or more")
        project = load_config()
        on = main_branch(branch, all_branches=all_branches, config=project)
        with HistoryStore.open(store, config=project) as history:
            found = demotion_candidates(history, window=window, models=model or None,
                                        branch=on)
            for candidate in found:
                typer.echo(_apply(history, candidate, dry_run=dry_run, verify=False))
        if not found:
            typer.echo("nothing to demote")

    register_workflow(app)


def _show_trial(console: Any, run_dir: str | None, test_id: str, model: str,
                trial: int, kept: str | None, project: ProjectConfig) -> None:
    """The trial's transcript, read from its run folder through RunDir."""
    from trialrun.history import history_name
    from trialrun.reports import render_transcript
    from trialrun.rundir import RunDir, RunDirLimits

    folder = run_dir or (kept if kept and Path(kept).is_dir() else None)
    if folder is None or not Path(folder).is_dir():
        console.print(f"  (transcript not kept: {kept or folder or 'no run folder'})",
                      highlight=False, markup=False)
        return
    try:
        run = RunDir.open(folder, limits=RunDirLimits.of(project))
        line = next(x for x in run.read().results  # an old record may name a URL
                    if history_name(x.model) == history_name(model)
                    and x.trial == (trial if run_dir else 0)
                    and (x.task_id == test_id or run_dir is None))
    except StopIteration:
        console.print(f"  (no trial {trial} of {test_id} in {folder})", markup=False)
        return
    except UserError as exc:  # a damaged run folder: its one line, then the next trial
        console.print(f"  (cannot show trial {trial} of {test_id}: {exc})", markup=False,
                      highlight=False)
        return
    render_transcript(run.transcript_or_empty(line), line, console)


def check_in(
    path: str = typer.Argument(..., help="A task file or folder, or a pytest eval file."),
    model: list[str] = typer.Option(..., "--model", "-m", help="Key model (repeat)."),
    k: int = typer.Option(3, "-k", help="Trials per model."),
) -> None:
    """Does a new eval reach 66 % on each key model? Exit 1 if not (before committing)."""
    from trialrun.history import measure

    if k < 1:
        raise UserError(f"-k {k}: must be 1 or more")
    if not Path(path.split("::")[0]).exists():
        raise UserError(f"{path}: no such file or folder")
    rows = measure(path, model, k)
    for row in rows:
        typer.echo(row.line())
    if not rows:
        raise UserError(f"{path}: no eval ran; check the path and the task filter")
    if not all(r.ok for r in rows):
        typer.echo("not ready: below 66 % on a key model (fix it, or commit it as "
                   "USUALLY_FAILS)")
        raise SystemExit(1)
    typer.echo("ready to commit")


def triage(
    test: str = typer.Argument(..., help="A task id, or a pytest node id (file::test)."),
    model: list[str] = typer.Option(None, "--model", "-m",
                                    help="Models to re-run (default: those in the history)."),
    k: int = typer.Option(3, "-k", help="Trials per model in the re-run."),
    last: int = typer.Option(3, "--last", help="Show this many latest failing trials."),
    rerun: bool = typer.Option(True, "--rerun/--no-rerun", help="Re-run the test."),
    store: str = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """The latest failing trials of TEST with their transcripts, then a k-trial re-run
    on each model with the success rate per model."""
    from rich.console import Console

    from trialrun.config import load_config
    from trialrun.history import HistoryStore, history_name, measure, rerun_specs

    console = Console()
    project = load_config()  # once: the store and the run folders' [rundir] limits
    with HistoryStore.open(store, config=project) as history:
        runs = history.runs(test_id=test)
        if not runs:
            raise UserError(f"{test}: not in the history; give a task id or a pytest node "
                            "id as `trialrun history` lists it")
        outcomes = [(run, o) for run in runs for o in run.outcomes]
        trials = history.trials_of(o.pk for _, o in outcomes)
        # every model the test ran on, by its history name; each re-runs with the
        # base URL its newest run recorded (or the one -m gives)
        labels = list(dict.fromkeys(history_name(m) for m in model)) if model else sorted(
            {history_name(o.model) for _, o in outcomes})
        specs = rerun_specs(history, test, labels, model or []) if rerun else []
    failing = [
        (run, o, t) for run, o in outcomes for t in trials[o.pk]
        if t.outcome in ("failed", "undetermined")
    ][::-1][:last]
    console.print(f"{test}: {len(failing)} latest failing trial(s)", highlight=False)
    for run, o, t in failing:
        console.rule(f"{run.run_id} ({run.trigger}) {o.model} trial {t.trial}: {t.outcome}",
                     align="left")
        if t.error:
            console.print(f"error: {t.error}", highlight=False, markup=False)
        _show_trial(console, run.run_dir, test, o.model, t.trial, t.transcript, project)
    if not rerun:
        return
    _, newest = outcomes[-1]
    source = newest.source
    if not source or not Path(source).is_file():
        raise UserError(f"{test}: its file {source or '(unknown)'} is not here; re-run it "
                        "from the checkout that has it")
    target = (f"{source}::{test.split('::', 1)[1]}" if newest.kind == "pytest"
              else source)
    rows = measure(target, specs, k, None if newest.kind == "pytest" else test)
    console.rule("re-run", align="left")
    for row in rows:
        console.print(row.line(), highlight=False, markup=False)


def lint_cmd(
    paths: list[str] = typer.Argument(..., help="Task files/folders and pytest files."),
    store: str = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """Flag ALWAYS_PASSES tasks and tests with no promotion record, golden tasks marked
    USUALLY_PASSES and invalid task files (exit 1)."""
    from trialrun.config import load_config
    from trialrun.history import HistoryStore, lint

    for raw in paths:
        if not Path(raw).exists():
            raise UserError(f"{raw}: no such file or folder")
    with HistoryStore.open(store, config=load_config()) as history:
        findings = lint(history, paths)
    for finding in findings:
        typer.echo(str(finding))
    if findings:
        raise SystemExit(1)
    typer.echo("every ALWAYS_PASSES eval has a promotion record")


def register_workflow(app: typer.Typer) -> None:
    app.command("check-in")(check_in)
    app.command()(triage)
    app.command("lint")(lint_cmd)
