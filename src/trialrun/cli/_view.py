"""`trialrun view [RESULTS_DIR]`: the read-only local viewer of runs."""

from __future__ import annotations

import sys
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from trialrun.history import HistoryStore
    from trialrun.reports import HeatCell

STORE_HELP = ("History store for the heat map: a SQLite path or postgresql://… (default: the "
              "history url in trialrun.toml, else .trialrun/history.db when it exists, else "
              "the run folders).")


def heat_cells(
    store: HistoryStore,
    last: int,
    tests: Collection[str] | None = None,
    models: Collection[str] | None = None,
) -> list[HeatCell]:
    """Per task × model its last `last` runs in the history store, as the reports' plain
    heat map cells (reports and history sit in one layer: the CLI joins them)."""
    from trialrun.errors import UserError
    from trialrun.history import shown_url
    from trialrun.reports import HeatCell

    try:
        found = store.recent_outcomes(last=last, tests=tests, models=models)
    except UserError:
        raise
    except Exception as exc:  # a database gone away mid-view: one line, not a traceback
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UserError(f"history store {shown_url(store.url)}: cannot read it ({first}); "
                        "check --store / [history] url") from None
    return [
        HeatCell(run_id=o.run_id, task_id=o.test_id, model=o.model, solved=o.solved,
                 n=o.trials, undetermined=o.undetermined, started_at=o.started_at)
        for o in found
    ]


def register(app: typer.Typer) -> None:
    @app.command()
    def view(
        results_dir: Path = typer.Argument(
            Path("results"), help="A folder of runs (or one run folder). Default: results/"
        ),
        port: int = typer.Option(8765, "--port", help="Port to listen on; 0 = any free port."),
        host: str = typer.Option(
            "127.0.0.1", "--host", help="Address to listen on (default loopback only)."
        ),
        baselines: Path | None = typer.Option(
            None, "--baselines", help="Mark regressions against the baselines in this folder."
        ),
        verbose: bool = typer.Option(False, "--verbose", help="Log every request to stderr."),
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Browse runs in a local web page: tasks, transcripts, plots, two runs compared,
        a run in progress followed live. Read-only; Ctrl-C stops it."""
        from trialrun.config import load_config
        from trialrun.errors import UserError
        from trialrun.history import HistoryStore, shown_url
        from trialrun.reports import make_server
        from trialrun.rundir import RunDirLimits
        from trialrun.tracking import CompareSettings

        if baselines is not None and not baselines.is_dir():
            raise UserError(f"--baselines {baselines}: no such folder; pass the baselines folder")
        project = load_config()  # once: the history store, [compare] and [rundir]
        settings, limits = CompareSettings.of(project), RunDirLimits.of(project)
        history = HistoryStore.open_existing(store, config=project)
        label = f"the history store {shown_url(history.url)}" if history else ""
        try:
            server = make_server(
                results_dir, host=host, port=port, baselines_dir=baselines, verbose=verbose,
                history=(lambda last: heat_cells(history, last)) if history else None,
                history_label=label, settings=settings, limits=limits,
            )
        except BaseException:
            if history is not None:
                history.close()
            raise
        print(f"trialrun view: {results_dir} at {server.url} (read-only; Ctrl-C stops)",
              flush=True)
        print(f"history heat map from {label or 'the run folders'}", file=sys.stderr,
              flush=True)
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(f"warning: listening on {host}: anyone who can reach it can read these runs",
                  file=sys.stderr, flush=True)
        try:
            server.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
            if history is not None:
                history.close()
