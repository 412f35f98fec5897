"""`trialrun promote` and `trialrun demote`: policies changed by the record, in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from trialrun.cli._history import STORE_HELP
from trialrun.errors import UserError


def _apply(store: Any, candidate: Any, *, dry_run: bool, verify: bool) -> str:
    """Verify and rewrite one candidate; returns the line to print."""
    from trialrun.history import read_policy, set_policy, verify_pytest, verify_task

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
        check = (verify_pytest(c.source, c.test_id, c.models) if c.kind == "pytest"
                 else verify_task(c.source, c.test_id, c.models, c.to_policy))
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
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Promote tests by their nightly record: USUALLY_PASSES → ALWAYS_PASSES after 100 %
        in the last --window runs (of at least --min-runs), USUALLY_FAILS → USUALLY_PASSES
        at 66 %; rewrites the policy in the task file or @eval_test in place."""
        from trialrun.history import HistoryStore, promotion_candidates

        if min_runs < 1 or window < 1:
            raise UserError("--min-runs and --window must be 1 or more")
        with HistoryStore.open(store) as history:
            found, notes = promotion_candidates(history, min_runs=min_runs, window=window,
                                                models=model or None)
            for candidate in found:
                typer.echo(_apply(history, candidate, dry_run=dry_run, verify=verify))
        for note in notes:
            typer.echo(note)
        if not found:
            typer.echo("nothing to promote")

    @app.command()
    def demote(
        window: int = typer.Option(7, "--window", help="Look at the last N CI runs."),
        model: list[str] = typer.Option(None, "--model", "-m", help="Only these models."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Say what would change."),
        store: str = typer.Option(None, "--store", help=STORE_HELP),
    ) -> None:
        """Demote ALWAYS_PASSES tests that failed in CI to USUALLY_PASSES, in place."""
        from trialrun.history import HistoryStore, demotion_candidates

        if window < 1:
            raise UserError("--window must be 1 or more")
        with HistoryStore.open(store) as history:
            found = demotion_candidates(history, window=window, models=model or None)
            for candidate in found:
                typer.echo(_apply(history, candidate, dry_run=dry_run, verify=False))
        if not found:
            typer.echo("nothing to demote")
