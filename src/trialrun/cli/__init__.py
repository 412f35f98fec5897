"""The `trialrun` command line: thin over the library.

Each command group lives in its own module with a `register(app)` function; modules import
heavy libraries inside the commands, so `trialrun --help` stays instant.
"""

from __future__ import annotations

import sys

import typer

from trialrun.cli import (
    _agents,
    _benchmarks,
    _clean,
    _history,
    _judge,
    _plan,
    _promote,
    _replay,
    _run,
    _tasks,
    _tracking,
    _view,
)
from trialrun.cli._parsers import strict_whole_numbers
from trialrun.cli._redacting import redact_output
from trialrun.core import redact
from trialrun.errors import UserError

app = typer.Typer(
    name="trialrun",
    help="Measure how reliably an LLM agent does the right thing, k tries out of k.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (
    _tasks, _run, _tracking, _plan, _judge, _clean,
    _replay, _history, _promote, _benchmarks, _view, _agents,
):
    _module.register(app)
strict_whole_numbers(app)


def _print_version(value: bool) -> None:
    """`trialrun --version` alone: eager, so it answers before click asks for a command."""
    if value:
        from trialrun import __version__

        typer.echo(__version__)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", is_eager=True,
        callback=_print_version,
    ),
) -> None:
    """Measure how reliably an LLM agent does the right thing, k tries out of k."""


def main() -> None:
    """Entry point: user errors become one line on stderr and exit 2, never a traceback;
    everything printed is redacted (`trialrun.cli._redacting`)."""
    redact_output()
    try:
        # With standalone_mode=False click returns the code of a `typer.Exit(n)`.
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except UserError as exc:
        typer.echo(f"trialrun: {redact(exc.describe())}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        typer.echo("trialrun: interrupted", err=True)
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("trialrun: aborted", err=True)
        sys.exit(130)
    except Exception as exc:  # click's usage errors (typer may vendor its own click)
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            sys.exit(2 if type(exc).__name__ in ("UsageError", "BadParameter",
                                                 "NoSuchOption", "MissingParameter")
                     else exc.exit_code)
        raise
