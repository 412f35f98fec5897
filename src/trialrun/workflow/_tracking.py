"""bless, compare, gate and report as the library offers them (`trialrun.bless`, …), each
returning a typed result, and the checks of their inputs, made once here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trialrun.reports as reports  # its face loads a writer on first use
from trialrun.errors import UserError
from trialrun.tracking import Blessed, Comparison, GateResult, configured_alpha, load_run, run_gate
from trialrun.tracking import bless as bless_run
from trialrun.tracking import compare as compare_run


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
    baselines: Path | str = "baselines",
    *,
    force: bool = False,
    reason: str | None = None,
) -> list[Blessed]:
    """Make each model of a complete run its blessed baseline (`trialrun bless`)."""
    return bless_run(run_dir, baselines, force=force, reason=reason)


def compare(
    run_dir: Path | str, against: Path | str, *, model: str | None = None
) -> Comparison:
    """One model of a run against a baseline file or another run folder (`trialrun
    compare`), at `[compare] alpha`."""
    return compare_run(run_dir, against, model=model, alpha=configured_alpha())


def gate(
    name: str,
    run_dir: Path | str,
    *,
    baseline: Path | str | None = None,
    baselines: Path | None = None,
    config: Path | str | None = None,
) -> GateResult:
    """A CI gate (merge, nightly, release) on a run: `result.exit_code` 0 passed, 1 failed."""
    check_baselines_dir(baselines)
    return run_gate(name, run_dir, baseline=baseline, baselines_dir=baselines, config=config)


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
) -> Report:
    """A run's JUnit XML and Markdown summary (compared with `baselines`), where given."""
    check_baselines_dir(baselines)
    check_output_path("junit", junit)
    check_output_path("markdown", markdown)
    run = load_run(run_dir)
    return Report(
        junit=reports.write_junit(run, junit) if junit is not None else None,
        markdown=reports.write_markdown(run, markdown, baselines) if markdown is not None else None,
    )
