"""Bless a run: write one baseline per model, refusing runs that would make a bad reference."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trialrun.core import is_unpinned, model_name
from trialrun.errors import UserError
from trialrun.rundir import RUN_JSON, RunDirLimits
from trialrun.tracking._baseline import (
    baseline_header,
    baseline_target,
    legacy_baseline_path,
    write_run_baseline,
)
from trialrun.tracking._run_data import RunData, load_run

MIN_K = 3


@dataclass(slots=True)
class Blessed:
    model: str
    path: Path
    forced: bool
    refusals: list[str]
    superseded: Path | None = None  # an old-named file (base URL in it) this one replaces


def _names(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def refusals(run: RunData, model: str) -> list[str]:
    """Why this model's results should not become a baseline (empty: fine to bless)."""
    records = run.for_model(model)
    out: list[str] = []
    infra = [f"{r.task_id}×{r.infra_errors}" for r in records if r.infra_errors]
    if infra:
        out.append(f"infrastructure errors in {len(infra)} task(s) ({_names(infra)})")
    undetermined = [f"{r.task_id}×{r.undetermined}" for r in records if r.undetermined]
    if undetermined:
        out.append(f"undetermined verdicts in {len(undetermined)} task(s) ({_names(undetermined)})")
    if records and is_unpinned(records[0].model_id):
        out.append(
            f"unpinned model id '{model_name(records[0].model_id)}' (-latest/-preview/:latest "
            "move under you; pin a dated version)"
        )
    small = sorted({r.k for r in records if r.k < MIN_K})
    if small:
        low = [r.task_id for r in records if r.k < MIN_K]
        out.append(f"k = {small[0]} < {MIN_K} for {len(low)} task(s) ({_names(low)})")
    short = [
        f"{r.task_id} ({r.n}/{r.k})"
        for r in records
        if not r.infra_errors and not r.undetermined and r.n < r.k
    ]
    if short:
        out.append(f"fewer than k trials in {len(short)} task(s) ({_names(short)})")
    return out


def latest_complete_run(
    results_dir: Path | str = "results", *, limits: RunDirLimits | None = None
) -> Path:
    """The most recent run under `results_dir` whose every planned trial finished.

    Newest first by run.json `started_at` (then the folder name: run ids begin with the
    UTC start). Interrupted or still running runs (fewer trials than planned), damaged
    folders and anything that is not a run folder are passed over.
    """
    folder = Path(results_dir)
    if not folder.is_dir():
        raise UserError(
            f"{folder}: no such folder; pass the run to bless (trialrun bless results/<run-id>)"
        )
    runs: list[tuple[str, str, RunData]] = []
    for path in folder.iterdir():
        if path.name.startswith(".") or not (path / RUN_JSON).is_file():
            continue  # hidden (a run being created) or not a run folder
        try:
            run = load_run(path, limits=limits, keep_task_entries=False)
        except UserError:
            continue
        runs.append((str(run.manifest.started_at or ""), path.name, run))
    for _, _, run in sorted(runs, key=lambda item: item[:2], reverse=True):
        if run.summary.expected_trials and run.finished >= run.summary.expected_trials:
            return run.path
    raise UserError(
        f"{folder}: no complete run found (one whose every planned trial finished); pass "
        "RUN_DIR, or finish a run with `trialrun run --resume RUN_DIR`"
    )


def bless(
    run_dir: Path | str,
    baselines_dir: Path | str = "baselines",
    *,
    force: bool = False,
    reason: str | None = None,
    limits: RunDirLimits | None = None,
) -> list[Blessed]:
    """Write `<baselines_dir>/<provider>-<slug(model name)>.json` for each model of the run.

    Refuses (UserError, exit 2) a run with infra errors, undetermined verdicts, unpinned
    model ids or k < 3, unless `force` with a `reason`, which the baseline records.
    Nothing is written unless every model may be blessed. `limits`: the project's
    `[rundir]` (None: the defaults).
    """
    if force and not (reason and reason.strip()):
        raise UserError('--force needs --reason "why this run may be a baseline anyway"')
    if reason and not force:
        raise UserError("--reason is only used with --force; drop it or add --force")
    run = load_run(run_dir, limits=limits, keep_task_entries=False)
    if not run.models:
        raise UserError(f"{run.path}: the run has no finished trials; nothing to bless")
    plan: list[tuple[str, list[str]]] = [(m, refusals(run, m)) for m in run.models]
    blocked = [(m, why) for m, why in plan if why]
    if blocked and not force:
        parts = [f"{m}: {'; '.join(why)}" for m, why in blocked]
        raise UserError(
            f"{run.path}: refusing to bless — {' | '.join(parts)}; fix and rerun, or pass "
            '--force --reason "…" to bless anyway'
        )
    out: list[Blessed] = []
    for model, why in plan:
        baseline = baseline_header(
            run, model, forced=force, reason=reason.strip() if reason else None
        )
        if force and why:
            baseline.extra["forced_over"] = why
        target = baseline_target(baselines_dir, baseline.provider, baseline.model)
        try:
            write_run_baseline(target, baseline, run)
        except OSError as exc:
            raise UserError(
                f"{target}: cannot write the baseline ({exc.strerror or exc}); "
                "free space or pick another --baselines"
            ) from None
        old = legacy_baseline_path(baselines_dir, baseline.provider, baseline.model)
        out.append(Blessed(model, target, force, why, old if old and old.is_file() else None))
    return out
