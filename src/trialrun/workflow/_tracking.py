"""bless, compare, gate and report as the library offers them (`trialrun.bless`, …), each
returning a typed result, and the checks of their inputs, made once here.

Each is an entry point: `config` is the project's trialrun.toml (a `ProjectConfig`, or
its path); None: the one found from the working directory, loaded here, once, and
passed down."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trialrun.reports as reports  # its face loads a writer on first use
from trialrun.config import ProjectConfig, load_config
from trialrun.errors import UserError
from trialrun.rundir import RunDirLimits
from trialrun.tracking import (
    Blessed,
    CompareSettings,
    Comparison,
    GateResult,
    default_baselines_dir,
    load_run,
    run_gate,
)
from trialrun.tracking import bless as bless_run
from trialrun.tracking import compare as compare_run

ConfigSource = ProjectConfig | Path | str | None


def resolve_project(config: ConfigSource) -> ProjectConfig:
    """The project config as given, or loaded from its path, or found (the one look)."""
    if isinstance(config, ProjectConfig):
        return config
    return load_config(Path(config) if config is not None else None)


def check_baselines_dir(value: Path | None) -> None:
    """A baselines folder given explicitly must exist (a typo must not read as "no
    baseline yet")."""
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


def check_output_path(flag: str, path: Path | None) -> None:
    """An output file pointing at a folder: said before the work, not after it."""
    if path is not None and path.is_dir():
        raise UserError(f"--{flag} {path}: is a folder; pass a file path, e.g. {path / 'report'}")


def bless(
    run_dir: Path | str,
    baselines: Path | str | None = None,
    *,
    force: bool = False,
    reason: str | None = None,
    config: ConfigSource = None,
) -> list[Blessed]:
    """Make each model of a complete run its blessed baseline (`trialrun bless`), in
    `baselines` (default: the project's `[baselines] dir`, else ./baselines)."""
    project = resolve_project(config)
    if baselines is None:
        baselines = default_baselines_dir(project)
    return bless_run(run_dir, baselines, force=force, reason=reason,
                     limits=RunDirLimits.of(project))


def compare(
    run_dir: Path | str,
    against: Path | str,
    *,
    model: str | None = None,
    config: ConfigSource = None,
) -> Comparison:
    """One model of a run against a baseline file or another run folder (`trialrun
    compare`), at the project's `[compare] alpha` and `method`."""
    project = resolve_project(config)
    settings, limits = CompareSettings.of(project), RunDirLimits.of(project)
    before = (load_run(against, limits=limits, keep_task_entries=False)
              if Path(against).is_dir() else against)
    run = load_run(run_dir, limits=limits, keep_task_entries=False)
    return compare_run(run, before, model=model, alpha=settings.alpha, method=settings.method)


def gate(
    name: str,
    run_dir: Path | str,
    *,
    baseline: Path | str | None = None,
    baselines: Path | None = None,
    config: ConfigSource = None,
) -> GateResult:
    """A CI gate (merge, nightly, release) on a run: `result.exit_code` 0 passed, 1 failed."""
    check_baselines_dir(baselines)
    project = resolve_project(config)
    return run_gate(name, run_dir, baseline=baseline, baselines_dir=baselines, config=project)


@dataclass(frozen=True, slots=True)
class Report:
    """The CI files `report` wrote (None: not asked)."""

    junit: Path | None = None
    markdown: Path | None = None


def report(
    run_dir: Path | str,
    *,
    junit: Path | None = None,
    markdown: Path | None = None,
    baselines: Path | None = None,
    config: ConfigSource = None,
) -> Report:
    """A run's JUnit XML and Markdown summary (compared with `baselines` at the project's
    `[compare]` settings), where given."""
    check_baselines_dir(baselines)
    check_output_path("junit", junit)
    check_output_path("markdown", markdown)
    project = resolve_project(config)
    run = load_run(run_dir, limits=RunDirLimits.of(project))
    settings = CompareSettings.of(project) if baselines is not None else CompareSettings()
    return Report(
        junit=reports.write_junit(run, junit) if junit is not None else None,
        markdown=(reports.write_markdown(run, markdown, baselines, settings)
                  if markdown is not None else None),
    )
