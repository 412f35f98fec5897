"""The run: plan models × tasks × k, execute trials concurrently, write the run folder.

Names are imported on first use: a worker process (`_proc_worker`, a module of this
package) loads what its trials need, not the driver's planning, resume and task loading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialrun.lazy import lazy_exports

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "Run": "trialrun.runner._config",
    "RunConfig": "trialrun.runner._config",
    "RunHooks": "trialrun.runner._config",
    "Executed": "trialrun.runner._executor",
    "Executor": "trialrun.runner._executor",
    "CleanReport": "trialrun.runner._inflight",
    "clean_runs": "trialrun.runner._inflight",
    "lock_holder": "trialrun.runner._inflight",
    "ctrl_c_raises": "trialrun.runner._interrupt",
    "Filters": "trialrun.runner._plan",
    "TrialSpec": "trialrun.runner._plan",
    "effective_k": "trialrun.runner._plan",
    "plan": "trialrun.runner._plan",
    "DEFAULT_MODEL": "trialrun.runner._run",
    "default_concurrency": "trialrun.runner._run",
    "run": "trialrun.runner._run",
    "run_async": "trialrun.runner._run",
    "unique_slugs": "trialrun.runner._run",
    "NeverStop": "trialrun.runner._stop_rule",
    "StopPlan": "trialrun.runner._stop_rule",
    "StopRule": "trialrun.runner._stop_rule",
    "StopRules": "trialrun.runner._stop_rule",
}

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

if TYPE_CHECKING:
    from trialrun.runner._config import Run, RunConfig, RunHooks
    from trialrun.runner._executor import Executed, Executor
    from trialrun.runner._inflight import CleanReport, clean_runs, lock_holder
    from trialrun.runner._interrupt import ctrl_c_raises
    from trialrun.runner._plan import Filters, TrialSpec, effective_k, plan
    from trialrun.runner._run import (
        DEFAULT_MODEL,
        default_concurrency,
        run,
        run_async,
        unique_slugs,
    )
    from trialrun.runner._stop_rule import NeverStop, StopPlan, StopRule, StopRules


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
