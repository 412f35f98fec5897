"""The run history: every run recorded in SQLite or PostgreSQL, the nightly report, and
promotion/demotion by the record.

    from trialrun.history import HistoryStore, run_record, build_report

    with HistoryStore.open() as store:          # --store / [history] url / .trialrun/history.db
        store.record(run_record("results/<run-id>", trigger="nightly"))
        print(render(build_report(store, last=7), "markdown"))
        cells = store.recent_outcomes(last=10)  # per task × model, its last 10 runs
"""

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
