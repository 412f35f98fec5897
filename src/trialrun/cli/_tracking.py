"""`trialrun bless | compare | gate | report | leaderboard | import scribe-baseline |
import tau-bench`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from trialrun.cli._tau_import import add_tau_import
from trialrun.errors import UserError

if TYPE_CHECKING:
    from trialrun.config import ProjectConfig
    from trialrun.reports import HeatCell, HistoryOf
    from trialrun.rundir import SummaryRow


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def _exit(code: int) -> None:
    """Exit with `code`: SystemExit, because `app(standalone_mode=False)` returns (and so
    drops) the code of a `typer.Exit`."""
    if code:
        raise SystemExit(code)


def _baselines_dir(value: Path | None, project: ProjectConfig) -> Path:
    """The --baselines folder, else the project's `[baselines] dir`; one given explicitly
    must exist (a typo must not read as "no baseline yet")."""
    if value is not None:
        _check_baselines_dir(value)
        return value
    from trialrun.tracking import default_baselines_dir

    return default_baselines_dir(project)


def _check_baselines_dir(value: Path | None) -> None:
    if value is None or value.is_dir():
        return
    if value.is_file():
        raise UserError(
            f"--baselines {value}: is a file; pass the folder holding the baseline files, "
            "or use --baseline FILE for one file"
        )
    raise UserError(
        f"--baselines {value}: no such folder; bless a run first (`trialrun bless RUN_DIR "
        f"--baselines {value}`) or fix the path"
    )


def legacy_notes(models: list[str], baselines_dir: Path) -> list[str]:
    """One note per model whose baseline was found under its old name (base URL in it)."""
    from trialrun.core import parse_model_spec
    from trialrun.tracking import legacy_baseline_note

    notes = []
    for spec in models:
        parsed = parse_model_spec(spec)
        note = legacy_baseline_note(baselines_dir, parsed.provider, parsed.model_id)
        if note:
            notes.append(note)
    return notes


def _check_config_file(value: Path | None) -> None:
    """Problems `trialrun.config.load_config` does not turn into one line (a folder,
    bytes that are not UTF-8)."""
    if value is None or not value.exists():
        return  # a missing file is load_config's own one-line error
    if value.is_dir():
        raise UserError(f"--config {value}: is a folder; pass a trialrun.toml file")
    try:
        value.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"--config {value}: not UTF-8 text; pass a trialrun.toml file") from None
    except OSError as exc:
        raise UserError(f"--config {value}: cannot read ({exc.strerror})") from None


HEAT_STORE_HELP = ("With --html: the history store whose last runs of this run's tasks "
                   "make the heat map (default: the history url in trialrun.toml, else "
                   ".trialrun/history.db when it exists; none: no heat map).")


@contextmanager
def _report_history(
    store: str | None, project: ProjectConfig
) -> Iterator[tuple[HistoryOf | None, str]]:
    """The report's heat map: a function of the run's summary rows giving their task ×
    model pairs' last runs in the history store, and the store's label; (None, "") when
    there is no store. The report calls it once it has read the run."""
    from trialrun.history import existing_store_url

    url = existing_store_url(store, project)  # before SQLAlchemy is imported: most have none
    if url is None:
        yield None, ""
        return
    from trialrun.cli._view import heat_cells
    from trialrun.history import HistoryStore, shown_url
    from trialrun.reports import HISTORY_RUNS

    history = HistoryStore(url)

    def cells_of(rows: Sequence[SummaryRow]) -> list[HeatCell]:
        cells = heat_cells(history, HISTORY_RUNS, tests={r.task_id for r in rows},
                           models={r.model for r in rows})
        wanted = {r.key for r in rows}
        return [c for c in cells if (c.task_id, c.model) in wanted]

    try:
        yield cells_of, f"the history store {shown_url(history.url)}"
    finally:
        history.close()


def bless(
    run_dir: Path | None = typer.Argument(
        None, help="A run directory (default: the most recent complete run in --results)."
    ),
    baselines: Path | None = typer.Option(
        None, "--baselines", help="Folder for the baseline files (default ./baselines)."
    ),
    results: Path = typer.Option(
        Path("results"), "--results", help="Where to look for the most recent run."
    ),
    force: bool = typer.Option(False, "--force", help="Bless despite the refusals."),
    reason: str | None = typer.Option(None, "--reason", help="Why (required by --force)."),
) -> None:
    """Write baselines/<provider>-<model>.json for each model of a run."""
    from trialrun.config import load_config
    from trialrun.rundir import RunDirLimits
    from trialrun.tracking import bless as do_bless
    from trialrun.tracking import latest_complete_run

    if baselines is not None and baselines.is_file():
        raise UserError(f"--baselines {baselines}: is a file; pass a folder for the baselines")
    project = load_config()  # once: [baselines] and [rundir]
    limits = RunDirLimits.of(project)
    target = baselines if baselines is not None else _baselines_dir(None, project)
    if run_dir is None:
        run_dir = latest_complete_run(results, limits=limits)
        print(f"blessing {run_dir} (most recent complete run)", flush=True)
    for item in do_bless(run_dir, target, force=force, reason=reason, limits=limits):
        extra = f" (forced: {reason})" if item.forced and item.refusals else ""
        print(f"blessed {item.model} → {item.path}{extra}")
        if item.superseded is not None:
            _err(
                f"note: {item.superseded}: the old name of this baseline (base URL in it) "
                f"is no longer read now that {item.path.name} exists; delete it"
            )


def compare(
    run_dir: Path = typer.Argument(..., help="The run to check (after)."),
    baseline: Path | None = typer.Option(None, "--baseline", help="A baseline file."),
    against: Path | None = typer.Option(
        None, "--against", help="Another run directory to compare with (before)."
    ),
    baselines: Path | None = typer.Option(
        None, "--baselines", help="Folder of baselines (default ./baselines)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
    all_tasks: bool = typer.Option(
        False, "--all", help="Also list improved tasks, not only drops."
    ),
) -> None:
    """Compare a run with its baselines: regressions told apart from noise."""
    from trialrun.config import load_config
    from trialrun.reports import comparisons_json, one_sided_lines, render_comparisons
    from trialrun.rundir import RunDirLimits
    from trialrun.tracking import (
        BaselineMatch,
        CompareSettings,
        OneSided,
        RunData,
        compare_run_pair,
        compare_with_baselines,
        load_run,
    )
    from trialrun.tracking import compare as compare_one

    if baseline is not None and against is not None:
        raise UserError("--baseline and --against exclude each other; pass one")
    project = load_config()  # once: [compare], [baselines] and [rundir]
    settings = CompareSettings.of(project)
    alpha, method = settings.alpha, settings.method
    limits = RunDirLimits.of(project)
    sides = OneSided()
    if against is not None:
        # each run read once (a 100k-trial run takes seconds to read), and the first let
        # go once its counts are taken, before the other is read
        same = against.resolve() == run_dir.resolve()
        first: RunData | Path = (load_run(run_dir, limits=limits, keep_task_entries=False)
                                 if same else run_dir)
        comparisons, sides = compare_run_pair(
            first, first if same else against, alpha=alpha, method=method, limits=limits
        )
        items = [BaselineMatch(c.model, against, c) for c in comparisons]
    elif baseline is not None:
        run = load_run(run_dir, limits=limits, keep_task_entries=False)
        c = compare_one(run, baseline, alpha=alpha, method=method)
        items = [BaselineMatch(c.model, baseline, c)]
    else:
        folder = _baselines_dir(baselines, project)
        run = load_run(run_dir, limits=limits, keep_task_entries=False)
        items = compare_with_baselines(run, folder, alpha=alpha, method=method)
        if not as_json:
            for note in legacy_notes([item.model for item in items], folder):
                _err(f"note: {note}")
    if as_json:
        print(comparisons_json(items, one_sided=sides))
        return
    render_comparisons(items, only_drops=not all_tasks,
                       one_sided=one_sided_lines(sides, str(run_dir), str(against)))


def gate(
    name: str = typer.Argument(..., help="merge | nightly | release"),
    run_dir: Path = typer.Argument(..., help="A run directory."),
    baseline: Path | None = typer.Option(None, "--baseline", help="A baseline file."),
    baselines: Path | None = typer.Option(
        None, "--baselines", help="Folder of baselines (default ./baselines)."
    ),
    config: Path | None = typer.Option(None, "--config", help="A trialrun.toml."),
    as_json: bool = typer.Option(False, "--json", help="One JSON document on stdout."),
) -> None:
    """Apply a CI gate: exit 0 passed, 1 failed (each failing rule named), 2 bad input."""
    from trialrun.config import load_config
    from trialrun.reports import gate_lines
    from trialrun.tracking import default_baselines_dir, run_gate

    _check_baselines_dir(baselines)
    _check_config_file(config)
    project = load_config(config)  # once: the gate and its notes read the same file
    result = run_gate(name, run_dir, baseline=baseline, baselines_dir=baselines, config=project)
    if as_json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        if baseline is None:
            folder = baselines or default_baselines_dir(project)
            for note in legacy_notes([m.model for m in result.models], folder):
                _err(f"note: {note}")
        for line in gate_lines(result):
            print(line)
    _exit(result.exit_code)


def report(
    run_dir: Path = typer.Argument(..., help="A run directory."),
    junit: Path | None = typer.Option(None, "--junit", help="Write JUnit XML here."),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Write Markdown here (e.g. $GITHUB_STEP_SUMMARY)."
    ),
    baselines: Path | None = typer.Option(
        None, "--baselines", help="Compare with the baselines in this folder."
    ),
    html: Path | None = typer.Option(
        None, "--html", help="Write one self-contained HTML report here (opens offline)."
    ),
    store: str = typer.Option(None, "--store", help=HEAT_STORE_HELP),
) -> None:
    """CI outputs for a run: JUnit XML, Markdown (on stdout by default), an HTML report."""
    from trialrun.config import load_config
    from trialrun.reports import (
        render_run_markdown,
        write_html_report,
        write_junit,
        write_markdown,
    )
    from trialrun.rundir import RunDirLimits
    from trialrun.tracking import CompareSettings, load_run

    _check_baselines_dir(baselines)
    if html is not None and html.is_dir():
        raise UserError(f"--html {html}: is a folder; pass a file name, e.g. report.html")
    if store is not None and html is None:
        raise UserError(f"--store {store}: only the HTML report shows the history; "
                        "add --html FILE")
    project = load_config()  # once: [compare], [rundir] and the history store
    settings = CompareSettings.of(project) if baselines is not None else CompareSettings()
    limits = RunDirLimits.of(project)
    if junit is not None or markdown is not None or html is None:
        run = load_run(run_dir, limits=limits)  # the HTML report reads the run itself
        if junit is not None:
            _err(f"wrote {write_junit(run, junit)}")
        if markdown is not None:
            _err(f"wrote {write_markdown(run, markdown, baselines, settings)}")
        if html is None and junit is None and markdown is None:
            print(render_run_markdown(run, baselines, settings))
        del run  # not held while the HTML report reads the run
    if html is not None:
        with _report_history(store, project) as (cells_of, label):
            written = write_html_report(run_dir, html, baselines, cells_of, label, settings,
                                        limits)
        _err(f"wrote {written}")


def leaderboard(
    baselines_dir: Path = typer.Argument(..., help="A folder of baseline files."),
    fmt: str = typer.Option("markdown", "--format", help="markdown | json"),
) -> None:
    """The published table, one row per baseline (trialrun or Gemini-Scribe)."""
    from trialrun.reports import leaderboard_markdown
    from trialrun.tracking import build_leaderboard

    if fmt not in ("markdown", "json"):
        raise UserError(f"--format {fmt}: use markdown or json")
    board = build_leaderboard(baselines_dir)
    if fmt == "json":
        print(board.to_json())
        return
    for warning in board.warnings:
        _err(f"trialrun: {warning}")
    print(leaderboard_markdown(board), end="")


def import_scribe(
    file: Path = typer.Argument(..., help="A Gemini-Scribe baseline JSON file."),
    out: Path = typer.Option(Path("baselines"), "-o", "--out", help="Output folder."),
) -> None:
    """Convert a Gemini-Scribe baseline into a trialrun baseline."""
    from trialrun.tracking import import_scribe_baseline

    print(f"wrote {import_scribe_baseline(file, out)}")


def register(app: typer.Typer) -> None:
    app.command()(bless)
    app.command()(compare)
    app.command()(gate)
    app.command()(report)
    app.command()(leaderboard)

    import_app = typer.Typer(help="Import results from other tools.", no_args_is_help=True)

    import_app.command("scribe-baseline")(import_scribe)

    add_tau_import(import_app)
    app.add_typer(import_app, name="import")
