"""`trialrun history [--last N] [--model M] [--trigger T] [--branch B] [--format F]` (the
nightly report, of the main branch by default) and `trialrun history import RUN_DIR…`
(back-fill from run folders)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from trialrun.errors import UserError

STORE_HELP = "History store: a SQLite path or postgresql://… (default: the history url in "
STORE_HELP += "trialrun.toml, else .trialrun/history.db)."


def _check_positive(flag: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise UserError(f"{flag} {value}: must be 1 or more")


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="The run history: the nightly report, and `import` to back-fill it.",
        invoke_without_command=True,
        no_args_is_help=False,
    )

    @group.callback()
    def report(
        ctx: typer.Context,
        last: int = typer.Option(7, "--last", help="The last N runs."),
        model: str = typer.Option(None, "--model", "-m", help="Only this model."),
        trigger: str = typer.Option(None, "--trigger", help="Only runs of this trigger: "
                                    "ci, nightly or local."),
        test: str = typer.Option(None, "--test", help="Only this test (task id or node id)."),
        branch: str = typer.Option(None, "--branch", help="Only this branch's runs (and those "
                                   "of unknown branch); default: the history branch in "
                                   "trialrun.toml, else main."),
        all_branches: bool = typer.Option(False, "--all-branches",
                                          help="The runs of every branch."),
        fmt: str = typer.Option("markdown", "--format", help="markdown, json or html."),
        out: Path = typer.Option(None, "--out", "-o", help="Write the report here too."),
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Per test and model, the pass rate of each of the last N runs, each run's total,
        and the tests trending worse. The Markdown fits $GITHUB_STEP_SUMMARY."""
        if ctx.invoked_subcommand is not None:
            ctx.obj = {"store": store}
            return
        _report(last=last, model=model, trigger=trigger, test=test, branch=branch,
                all_branches=all_branches, fmt=fmt, out=out, store=store)

    @group.command("import")
    def import_runs(
        ctx: typer.Context,
        run_dirs: list[Path] = typer.Argument(..., help="Run folders written by trialrun run."),
        trigger: str = typer.Option(None, "--trigger", help="ci, nightly or local "
                                    "(default: ci when $CI is set, else local)."),
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Back-fill the history from run folders (a run already recorded is skipped)."""
        from trialrun.config import load_config
        from trialrun.history import HistoryStore, detect_trigger, run_record
        from trialrun.rundir import RunDirLimits

        chosen = detect_trigger(trigger)
        project = load_config()  # once: the store and the run folders' [rundir] limits
        limits = RunDirLimits.of(project)
        records = [run_record(path, trigger=chosen, limits=limits)
                   for path in run_dirs]  # all checked first
        with HistoryStore.open(store or (ctx.obj or {}).get("store"),
                               config=project) as history:
            for path, record in zip(run_dirs, records, strict=True):
                added = history.record(record)
                what = "recorded" if added else "already recorded"
                trials = sum(len(o.trials) for o in record.outcomes)
                print(f"{what}: {path} ({record.run_id}, {trigger_label(chosen)}, "
                      f"{len(record.outcomes)} task×model, {trials} trials)")

    app.add_typer(group, name="history")


def _report(
    *, last: int, model: str | None, trigger: str | None, test: str | None,
    branch: str | None, all_branches: bool, fmt: str, out: Path | None, store: str | None,
) -> None:
    """`trialrun history`: the report of the last runs, on stdout (and in --out)."""
    from trialrun.config import load_config
    from trialrun.history import (
        FORMATS,
        TRIGGERS,
        HistoryStore,
        build_report,
        main_branch,
        render,
    )
    from trialrun.tracking import configured_alpha

    _check_positive("--last", last)
    if fmt not in FORMATS:
        raise UserError(f"--format {fmt}: unknown; use one of {', '.join(FORMATS)}")
    if trigger is not None and trigger not in TRIGGERS:
        raise UserError(f"--trigger {trigger}: unknown; use one of {', '.join(TRIGGERS)}")
    project = load_config()  # once: the branch, the store and the trend's alpha
    on = main_branch(branch, all_branches=all_branches, config=project)
    alpha = configured_alpha(project)
    with HistoryStore.open(store, config=project) as history:
        text = render(build_report(history, last=last, model=model, trigger=trigger,
                                   test_id=test, branch=on, alpha=alpha), fmt)
    if out is not None:
        from trialrun.rundir import WriteError, write_text_atomic

        try:
            write_text_atomic(out, text)
        except (WriteError, OSError) as exc:
            raise UserError(f"--out {out}: cannot write it ({exc}); pick a writable path") \
                from None
    sys.stdout.write(text)


def trigger_label(trigger: str) -> str:
    return f"trigger {trigger}"
