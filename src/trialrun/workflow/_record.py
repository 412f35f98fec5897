"""A finished run recorded in the history (a store another process holds locked: the
record is queued beside it); a line saying why not, else None. The run and its results
stay whatever happens here."""

from __future__ import annotations

from pathlib import Path

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.rundir import RunDirLimits


def record_run(
    run_dir: Path, trigger: str | None, store: str | None, project: ProjectConfig
) -> str | None:
    """Record a finished run (unless recording is off and no store is given) in `store`,
    else the store `project` (its `[history]`) names."""
    try:  # the history libraries are an optional extra: loaded here, when asked
        from trialrun.history import (
            RUN_WAIT_S,
            HistoryStore,
            StoreBusy,
            detect_trigger,
            recording_enabled,
            run_record,
        )
    except ImportError as exc:  # an install without the history libraries
        return (f"history: run not recorded: {exc.name or exc} is not installed; "
                "pip install 'trialrun[history]' (or TRIALRUN_HISTORY=off)")
    if not recording_enabled(project) and store is None:
        return None
    try:
        record = run_record(run_dir, trigger=detect_trigger(trigger), source="cli",
                            limits=RunDirLimits.of(project))
        # a store another process holds locked: a short wait, then the record is queued
        with HistoryStore.open(store, config=project, busy_timeout_s=RUN_WAIT_S) as history:
            history.record(record)
    except StoreBusy as exc:
        return _queue(exc.url, run_dir, record.trigger)
    except UserError as exc:
        return f"history: run not recorded: {exc}"
    except Exception as exc:  # a database that failed mid-write: the run itself is kept
        return f"history: run not recorded: {type(exc).__name__}: {exc}"
    return None


def _queue(url: str, run_dir: Path, trigger: str) -> str:
    """The run's record queued beside a locked store (`trialrun.history._pending`)."""
    from trialrun.history import queue_record, store_label  # loaded already: record_run

    try:
        queued = queue_record(url, run_dir, trigger, "cli")
    except OSError as exc:
        return (f"history: run not recorded: {store_label(url)} is locked by another process "
                f"and the run could not be queued ({exc}); record it later with "
                f"`trialrun history import {run_dir}`")
    return (f"history: {store_label(url)} is locked by another process; the run is queued in "
            f"{queued} and recorded by the next history command or run")
