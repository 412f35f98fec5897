"""The run: plan models × tasks × k, execute trials concurrently, write the run folder."""

from trialrun.runner._config import Run, RunConfig, RunHooks
from trialrun.runner._executor import Executed, Executor
from trialrun.runner._inflight import CleanReport, clean_runs, lock_holder
from trialrun.runner._interrupt import ctrl_c_raises
from trialrun.runner._plan import Filters, TrialSpec, effective_k, plan
from trialrun.runner._run import DEFAULT_MODEL, default_concurrency, run, run_async, unique_slugs
from trialrun.runner._stop_rule import NeverStop, StopPlan, StopRule, StopRules

__all__ = [
    "DEFAULT_MODEL",
    "CleanReport",
    "Executed",
    "Executor",
    "Filters",
    "NeverStop",
    "Run",
    "RunConfig",
    "RunHooks",
    "StopPlan",
    "StopRule",
    "StopRules",
    "TrialSpec",
    "clean_runs",
    "ctrl_c_raises",
    "default_concurrency",
    "effective_k",
    "lock_holder",
    "plan",
    "run",
    "run_async",
    "unique_slugs",
]
