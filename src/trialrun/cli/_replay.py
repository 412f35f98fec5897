"""`trialrun replay import`: turn a recorded failed trial into a failure_replays task."""

from __future__ import annotations

from pathlib import Path

import typer

replay_app = typer.Typer(
    help="Failure replays: turn a failed trial into a regression test.", no_args_is_help=True
)


@replay_app.command("import")
def import_(
    transcript: Path = typer.Argument(
        ..., help="A trialrun transcript, an OpenAI-format chat log, or a run folder (--task)."
    ),
    out: Path | None = typer.Option(None, "-o", "--out", help="Task file to write (.yaml)."),
    task: str | None = typer.Option(None, "--task", help="With a run folder: the task id."),
    trial: int | None = typer.Option(
        None, "--trial", help="With a run folder: the trial (default: its first failed one)."
    ),
    task_id: str | None = typer.Option(None, "--id", help="The replay's task id."),
    expect: list[str] = typer.Option(
        [], "--expect", help="Text the right answer contains (repeat: any of)."
    ),
    force: bool = typer.Option(False, "--force", help="Overwrite the task file and fixture."),
) -> None:
    """Write a failure_replays task that reproduces the recorded failure; print what it
    inferred so you can edit it."""
    from trialrun.errors import UserError
    from trialrun.replay import import_replay

    if out is not None and out.suffix.lower() not in (".yaml", ".yml"):
        raise UserError(f"{out}: the replay is written as YAML; give -o FILE.yaml")
    done = import_replay(
        transcript, out, task=task, trial=trial, task_id=task_id, expect=expect or None,
        force=force,
    )
    typer.echo(f"wrote {done.path} (task {done.replay.task['task_id']}, suite failure_replays)")
    if done.fixture_dir is not None:
        typer.echo(f"wrote {done.fixture_dir}/ ({len(done.replay.fixture)} file(s))")
    typer.echo("inferred:")
    for line in done.replay.inferred:
        typer.echo(f"  - {line}")
    typer.echo(f"run it: trialrun run {done.path} --model SPEC")


def register(app: typer.Typer) -> None:
    """Add this group's commands to the app."""
    app.add_typer(replay_app, name="replay")
