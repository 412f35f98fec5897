"""A run folder as a history record (for `trialrun run` and `trialrun history import`).

Read only through `trialrun.rundir.RunDir`: the same checks every command makes.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from trialrun.history._records import Outcome, RunRecord, TrialRecord, iso
from trialrun.rundir import ResultLine, RunDir, RunDirLimits


def trial_outcome(line: ResultLine) -> str:
    """infra (leaves every denominator), solved, undetermined or failed."""
    if line.is_infra:
        return "infra"
    if line.solve is True:
        return "solved"
    if line.solve is None and line.passed is not False:
        return "undetermined"
    return "failed"


def _time(value: str | None, fallback: float) -> str:
    if value:
        try:
            return iso(datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            pass
    return iso(datetime.fromtimestamp(fallback, UTC))


def _source(value: object) -> str | None:
    """The task file, absolute when it exists from here (run.json keeps it as given)."""
    if not value:
        return None
    path = Path(str(value))
    return str(path.resolve()) if path.exists() else str(path)


def run_record(
    path: Path | str,
    *,
    trigger: str,
    source: str = "import",
    git_branch: str | None = None,
    limits: RunDirLimits | None = None,
) -> RunRecord:
    """The record of the run folder at `path` (a damaged folder is the reader's UserError),
    read within `limits` (the project's `[rundir]`; None: the defaults)."""
    run = RunDir.open(path, limits=limits)
    manifest = run.manifest()
    results_mtime = os.path.getmtime(run.results_path) if run.results_path.exists() else 0.0
    meta = manifest.task_meta()
    by_key: dict[tuple[str, str], Outcome] = {}
    # lines stream (a 100,000-trial run is not held); a trial keeps a few small fields,
    # its transcript file's path and error text shared with the trials that repeat them
    shared: dict[str, str] = {}
    for line in run.iter_results(manifest=manifest):
        task = meta.get(line.task_id, {})
        outcome = by_key.get((line.task_id, line.model))
        if outcome is None:
            k = task.get("k") or manifest.k
            outcome = by_key[(line.task_id, line.model)] = Outcome(
                test_id=line.task_id,
                model=line.model,
                kind="task",
                source=_source(task.get("source")),
                policy=str(task["policy"]) if task.get("policy") else None,
                k=k if isinstance(k, int) else None,
            )
        error = line.error.get("message") if line.error else None
        transcript = None
        if line.transcript:
            transcript = shared.get(line.transcript)
            if transcript is None:
                transcript = shared[line.transcript] = str((run.path / line.transcript).resolve())
        outcome.trials.append(
            TrialRecord(
                trial=line.trial,
                outcome=trial_outcome(line),
                error=shared.setdefault(str(error), str(error)) if error else None,
                transcript=transcript,
            )
        )
    for outcome in by_key.values():
        outcome.trials.sort(key=lambda t: t.trial)
    branch = git_branch or manifest.git_branch  # None: run.json predates branches
    return RunRecord(
        run_id=manifest.run_id or run.path.name,
        started_at=_time(manifest.started_at, results_mtime),
        ended_at=_time(None, results_mtime) if results_mtime else None,
        trigger=trigger,
        source=source,
        git_sha=manifest.git_sha,
        git_branch=str(branch) if branch else None,
        models=list(manifest.models),
        run_dir=str(run.path.resolve()),
        argv=list(manifest.argv),
        outcomes=sorted(by_key.values(), key=lambda o: (o.test_id, o.model)),
    )
