"""The steps after a run, the same for `trialrun run`, the pytest plugin and
`trialrun.run()`: JUnit/Markdown files, the viewer's index of a large run (on unless
turned off; a child writes it alongside the other steps), a history record, each model
against its blessed baseline, a gate. Each other step is asked for (`AfterRun`) and
checked before the run; what it found is a typed `FollowUp`. The run is complete and
kept whatever happens here: a damaged baseline or a store that fails is a warning, not a
failed run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trialrun.config import ProjectConfig
from trialrun.core import parse_model_spec
from trialrun.errors import UserError
from trialrun.reports import VIEW_INDEX_FROM, start_index_after_run
from trialrun.rundir import RunDirLimits
from trialrun.tracking import (
    GATES,
    BaselineMatch,
    CompareSettings,
    GateResult,
    RunData,
    compare_with_baselines,
    default_baselines_dir,
    legacy_baseline_note,
    load_run,
    run_gate,
)
from trialrun.workflow._record import record_run
from trialrun.workflow._tracking import check_baselines_dir, check_output_path, report


@dataclass(frozen=True, slots=True)
class AfterRun:
    """What follows a run. Only a completed run (not interrupted) is recorded, compared
    or gated; the files are written either way."""

    junit: Path | None = None  # JUnit XML written here
    markdown: Path | None = None  # a Markdown summary written here
    record: bool = False  # recorded in the history (unless recording is off)
    store: str | None = None  # the history store (default: as `trialrun history`)
    trigger: str | None = None  # ci, nightly or local (default: ci when $CI is set)
    compare: bool = False  # each model against its blessed baseline
    baselines: Path | None = None  # the baselines folder (default: [baselines] dir)
    gate: str | None = None  # merge, nightly or release
    # a run of this many trials or more writes the viewer's index as it ends (None: never)
    view_index_from: int | None = VIEW_INDEX_FROM

    def check(self) -> None:
        """Every option refused before the run (one line each), not after it."""
        check_baselines_dir(self.baselines)
        check_output_path("junit", self.junit)
        check_output_path("markdown", self.markdown)
        if self.trigger is not None:
            from trialrun.history import detect_trigger  # an optional extra

            detect_trigger(self.trigger)
        if self.gate is not None and self.gate not in GATES:
            raise UserError(f"--gate {self.gate}: unknown gate; use one of {', '.join(GATES)}")


@dataclass(slots=True)
class FollowUp:
    """What followed a run: warnings (the run still stands), the comparisons (None: not
    asked or the run was interrupted; `comparison_error` when a baseline could not be
    read), notes on baselines found under an old name, the gate's result."""

    warnings: list[str] = field(default_factory=list)
    comparisons: list[BaselineMatch] | None = None
    comparison_error: str | None = None
    notes: list[str] = field(default_factory=list)
    gate: GateResult | None = None


def follow_up(
    run_dir: Path, interrupted: bool, after: AfterRun, project: ProjectConfig,
    *, trials: int = 0,
) -> FollowUp:
    """The steps `after` asks for, on the run in `run_dir` (`trials`: its finished
    trials); `project`: the run's trialrun.toml as its entry point loaded it
    (`[history]`, `[compare]`, `[baselines]`, `[gates.*]`, `[rundir]`)."""
    out = FollowUp()
    with start_index_after_run(  # a child writes the viewer's index meanwhile
            run_dir, trials, CompareSettings.of(project), RunDirLimits.of(project),
            from_trials=None if interrupted else after.view_index_from) as index:
        if after.junit is not None or after.markdown is not None:
            out.warnings.extend(_files(run_dir, after, project))
        if not interrupted:
            _record_compare_gate(run_dir, after, project, out)
        if note := index.wait():
            out.warnings.append(note)
    return out


def _record_compare_gate(
    run_dir: Path, after: AfterRun, project: ProjectConfig, out: FollowUp
) -> None:
    if after.record and (note := record_run(run_dir, after.trigger, after.store, project)):
        out.warnings.append(note)
    run: RunData | Path = run_dir
    if after.compare and after.gate is not None:  # read once for both
        run = load_run(run_dir, limits=RunDirLimits.of(project), keep_task_entries=False)
    if after.compare:
        folder = after.baselines or default_baselines_dir(project)
        _compare(run, folder, CompareSettings.of(project), out)
    if after.gate is not None:
        out.gate = run_gate(after.gate, run, baselines_dir=after.baselines, config=project)


def _files(run_dir: Path, after: AfterRun, project: ProjectConfig) -> list[str]:
    """The JUnit and Markdown files; a Markdown summary a damaged baseline stops is a
    warning, a file that cannot be written is bad input."""
    try:
        if after.junit is not None:
            report(run_dir, junit=after.junit, config=project)
    except OSError as exc:
        raise UserError(f"--junit {after.junit}: cannot write it ({exc.strerror or exc}); "
                        "pick a writable path") from None
    try:
        if after.markdown is not None:
            report(run_dir, markdown=after.markdown, baselines=after.baselines,
                   config=project)
    except OSError as exc:
        raise UserError(f"--markdown {after.markdown}: cannot write it "
                        f"({exc.strerror or exc}); pick a writable path") from None
    except UserError as exc:
        return [f"--markdown {after.markdown}: not written: {exc}"]
    return []


def _compare(
    run_dir: RunData | Path, folder: Path, settings: CompareSettings, out: FollowUp
) -> None:
    try:
        out.comparisons = compare_with_baselines(run_dir, folder, alpha=settings.alpha,
                                                 method=settings.method)
    except UserError as exc:
        out.comparison_error = str(exc)
        return
    out.notes = legacy_notes([m.model for m in out.comparisons], folder)


def legacy_notes(models: list[str], baselines_dir: Path) -> list[str]:
    """One note per model whose baseline was found under its old name (base URL in it)."""
    notes = []
    for spec in models:
        parsed = parse_model_spec(spec)
        note = legacy_baseline_note(baselines_dir, parsed.provider, parsed.model_id)
        if note:
            notes.append(note)
    return notes
