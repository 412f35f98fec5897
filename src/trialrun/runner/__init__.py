"""The run: plan models × tasks × k, execute trials concurrently, write the run directory."""

from trialrun.runner._plan import Filters, TrialSpec, effective_k, plan
from trialrun.runner._run import (
    DEFAULT_MODEL,
    RunHooks,
    RunOutcome,
    default_concurrency,
    run_suite,
    run_suite_async,
)
from trialrun.runner._store import RunStore, new_run_id, read_results

__all__ = [
    "DEFAULT_MODEL",
    "Filters",
    "RunHooks",
    "RunOutcome",
    "RunStore",
    "TrialSpec",
    "default_concurrency",
    "effective_k",
    "new_run_id",
    "plan",
    "read_results",
    "run_suite",
    "run_suite_async",
]
