"""`trialrun agents install NAME` / `trialrun agents list`: the agent CLIs behind the presets."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="The agent CLIs trialrun runs as --agent presets (gemini-cli, claude-code, codex).",
        no_args_is_help=True,
    )

    @group.command("install")
    def install(
        name: str = typer.Argument(..., help="The preset: gemini-cli, claude-code or codex."),
        version: str = typer.Option(
            None, "--version", help="The npm version (default: the one trialrun pins)."
        ),
        prefix: Path = typer.Option(
            None,
            "--prefix",
            help="Install here (default: ~/.cache/trialrun/agents/NAME-VERSION).",
        ),
    ) -> None:
        """npm-install an agent CLI at its pinned version into trialrun's own folder."""
        from trialrun.agents import npm_install, preset_or_error

        preset = preset_or_error(name, "trialrun agents install")
        spec = f"{preset.package}@{version or preset.version}"
        typer.echo(f"installing {spec} …")
        binary = npm_install(preset, version, prefix)
        typer.echo(f"installed {preset.name}: {binary}")
        if prefix is not None:
            typer.echo(f"put {binary.parent} on PATH so `--agent {preset.name}` finds it")

    @group.command("list")
    def list_() -> None:
        """Each preset: installed (where) or missing, its pinned version and wire API."""
        from trialrun.agents import find_binary, get_preset, preset_names

        for name in preset_names():
            preset = get_preset(name)
            assert preset is not None
            found = find_binary(preset)
            where = f"installed ({found.binary})" if found else "missing"
            typer.echo(
                f"{name:<12} {where}  pinned {preset.package}@{preset.version}, "
                f"speaks {preset.api}"
            )
            if found is None:
                typer.echo(f"{'':<12} install: trialrun agents install {name}")

    app.add_typer(group, name="agents")
