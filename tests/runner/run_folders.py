"""What the executor tests compare between two run folders (read through trialrun.rundir)."""

from __future__ import annotations

from pathlib import Path

from trialrun.rundir import RunDir

COUNTS = ("n", "passed", "solved", "undetermined", "infra_errors")


def counts(run_path: Path) -> dict[tuple[str, str], tuple]:
    """Per (task, model): the summary's counts (n, passed, solved, undetermined, infra)."""
    summary = RunDir.open(run_path).stored_summary()
    assert summary is not None
    return {(r.task_id, r.model): tuple(getattr(r, c) for c in COUNTS) for r in summary.tasks}


def keys(run_path: Path) -> list[tuple[str, str, int]]:
    """Every results line's (task, model, trial), in file order."""
    return [line.key for line in RunDir.open(run_path).iter_results()]
