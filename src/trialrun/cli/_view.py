"""`trialrun view [RESULTS_DIR]`: the read-only local viewer of runs."""

from __future__ import annotations

import sys
from pathlib import Path

import typer


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
    ) -> None:
        """Browse runs in a local web page: tasks, transcripts, plots, two runs compared,
        a run in progress followed live. Read-only; Ctrl-C stops it."""
        from trialrun.errors import UserError
        from trialrun.reports import make_server

        if baselines is not None and not baselines.is_dir():
            raise UserError(f"--baselines {baselines}: no such folder; pass the baselines folder")
        server = make_server(
            results_dir, host=host, port=port, baselines_dir=baselines, verbose=verbose
        )
        print(f"trialrun view: {results_dir} at {server.url} (read-only; Ctrl-C stops)",
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
