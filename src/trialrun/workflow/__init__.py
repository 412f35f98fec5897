"""The library's workflows over the packages below: a run with early stop and the steps
after it (history record, baseline comparison, JUnit/Markdown, a gate), and bless,
compare, gate and report. `trialrun run`, the pytest plugin and `trialrun.run()` call
these, so each surface behaves the same."""

from trialrun.workflow._after_run import AfterRun, FollowUp, follow_up
from trialrun.workflow._run import FollowUpInterrupted, run, run_async
from trialrun.workflow._tracking import Report, bless, compare, gate, report

__all__ = [
    "AfterRun",
    "FollowUp",
    "FollowUpInterrupted",
    "Report",
    "bless",
    "compare",
    "follow_up",
    "gate",
    "report",
    "run",
    "run_async",
]
