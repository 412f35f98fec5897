"""The run history: every run recorded in SQLite or PostgreSQL, the nightly report, and
promotion/demotion by the record.

    from trialrun.history import HistoryStore, run_record, build_report

    with HistoryStore.open() as store:          # --store / [history] url / .trialrun/history.db
        store.record(run_record("results/<run-id>", trigger="nightly"))
        print(render(build_report(store, last=7), "markdown"))
        cells = store.recent_outcomes(last=10)  # per task × model, its last 10 runs

Names are imported on first use: `trialrun report` without a store never loads SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialrun.lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "DEFAULT_BRANCH": "trialrun.history._branch",
    "FORMATS": "trialrun.history._render",
    "OUTCOMES": "trialrun.history._records",
    "POLICIES": "trialrun.history._records",
    "TRIGGERS": "trialrun.history._records",
    "Candidate": "trialrun.history._promotion",
    "Cell": "trialrun.history._report",
    "Finding": "trialrun.history._lint",
    "Measured": "trialrun.history._checkin",
    "HistoryStore": "trialrun.history._store",
    "RUN_WAIT_S": "trialrun.history._pending",
    "StoreBusy": "trialrun.history._store",
    "import_pending": "trialrun.history._pending",
    "pending_path": "trialrun.history._pending",
    "queue_record": "trialrun.history._pending",
    "store_label": "trialrun.history._store",
    "Outcome": "trialrun.history._records",
    "RecentOutcome": "trialrun.history._records",
    "Report": "trialrun.history._report",
    "Row": "trialrun.history._report",
    "RunRecord": "trialrun.history._records",
    "StoredOutcome": "trialrun.history._records",
    "StoredRun": "trialrun.history._records",
    "TrialRecord": "trialrun.history._records",
    "Verification": "trialrun.history._verify",
    "build_report": "trialrun.history._report",
    "demotion_candidates": "trialrun.history._promotion",
    "detect_trigger": "trialrun.history._git",
    "existing_store_url": "trialrun.history._url",
    "git_info": "trialrun.history._git",
    "history_name": "trialrun.history._records",
    "lint": "trialrun.history._lint",
    "main_branch": "trialrun.history._branch",
    "measure": "trialrun.history._checkin",
    "percent": "trialrun.history._render",
    "promotion_candidates": "trialrun.history._promotion",
    "read_policy": "trialrun.history._rewrite",
    "recording_enabled": "trialrun.history._url",
    "render": "trialrun.history._render",
    "rerun_specs": "trialrun.history._specs",
    "run_record": "trialrun.history._import",
    "set_policy": "trialrun.history._rewrite",
    "shown_url": "trialrun.history._url",
    "store_url": "trialrun.history._url",
    "trial_outcome": "trialrun.history._import",
    "utc_now": "trialrun.history._records",
    "verify_pytest": "trialrun.history._verify",
    "verify_task": "trialrun.history._verify",
}

if TYPE_CHECKING:
    from trialrun.history._branch import DEFAULT_BRANCH, main_branch
    from trialrun.history._checkin import Measured, measure
    from trialrun.history._git import detect_trigger, git_info
    from trialrun.history._import import run_record, trial_outcome
    from trialrun.history._lint import Finding, lint
    from trialrun.history._pending import RUN_WAIT_S, import_pending, pending_path, queue_record
    from trialrun.history._promotion import (
        Candidate,
        demotion_candidates,
        promotion_candidates,
    )
    from trialrun.history._records import (
        OUTCOMES,
        POLICIES,
        TRIGGERS,
        Outcome,
        RecentOutcome,
        RunRecord,
        StoredOutcome,
        StoredRun,
        TrialRecord,
        history_name,
        utc_now,
    )
    from trialrun.history._render import FORMATS, percent, render
    from trialrun.history._report import Cell, Report, Row, build_report
    from trialrun.history._rewrite import read_policy, set_policy
    from trialrun.history._specs import rerun_specs
    from trialrun.history._store import HistoryStore, StoreBusy, store_label
    from trialrun.history._url import (
        existing_store_url,
        recording_enabled,
        shown_url,
        store_url,
    )
    from trialrun.history._verify import Verification, verify_pytest, verify_task

__all__ = [
    "DEFAULT_BRANCH",
    "FORMATS",
    "OUTCOMES",
    "POLICIES",
    "TRIGGERS",
    "Candidate",
    "Cell",
    "Finding",
    "Measured",
    "HistoryStore",
    "RUN_WAIT_S",
    "StoreBusy",
    "import_pending",
    "pending_path",
    "queue_record",
    "store_label",
    "Outcome",
    "RecentOutcome",
    "Report",
    "Row",
    "RunRecord",
    "StoredOutcome",
    "StoredRun",
    "TrialRecord",
    "Verification",
    "build_report",
    "demotion_candidates",
    "detect_trigger",
    "existing_store_url",
    "git_info",
    "history_name",
    "lint",
    "main_branch",
    "measure",
    "percent",
    "promotion_candidates",
    "read_policy",
    "recording_enabled",
    "render",
    "rerun_specs",
    "run_record",
    "set_policy",
    "shown_url",
    "store_url",
    "trial_outcome",
    "utc_now",
    "verify_pytest",
    "verify_task",
]


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
