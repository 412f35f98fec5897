"""The run: plan models × tasks × k, execute trials concurrently, write the run folder."""

from trialrun.runner._config import Run, RunConfig, RunHooks
from trialrun.runner._inflight import CleanReport, clean_runs, lock_holder
from trialrun.runner._plan import Filters, TrialSpec, effective_k, plan
from trialrun.runner._run import DEFAULT_MODEL, default_concurrency, run, run_async, unique_slugs

__all__ = [
    "DEFAULT_MODEL",
    "CleanReport",
    "Filters",
    "Run",
    "RunConfig",
    "RunHooks",
    "TrialSpec",
    "clean_runs",
    "default_concurrency",
    "effective_k",
    "lock_holder",
    "plan",
    "run",
    "run_async",
    "unique_slugs",
]
