"""trialrun: measure how reliably an LLM agent does the right thing, k tries out of k.

The public Python API (the CLI and the pytest plugin call only this)::

    import trialrun

    run = trialrun.run("examples/", models=["local"], k=3)
    print(run.summary.aggregate["local"]["pass_k_rate"], run.path)

Names are imported on first use, so `import trialrun` (and `trialrun --help`) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialrun.lazy import lazy_exports
from trialrun.version import __version__

# public name -> the package that defines it
_EXPORTS: dict[str, str] = {
    "run": "trialrun.workflow",
    "run_async": "trialrun.workflow",
    "AfterRun": "trialrun.workflow",
    "FollowUp": "trialrun.workflow",
    "Report": "trialrun.workflow",
    "bless": "trialrun.workflow",
    "compare": "trialrun.workflow",
    "gate": "trialrun.workflow",
    "report": "trialrun.workflow",
    "RunConfig": "trialrun.runner",
    "Run": "trialrun.runner",
    "RunHooks": "trialrun.runner",
    "Filters": "trialrun.runner",
    "load_tasks": "trialrun.tasks",
    "Task": "trialrun.tasks",
    "grader": "trialrun.graders",
    "GraderConfig": "trialrun.graders",
    "TrialView": "trialrun.graders",
    "tool": "trialrun.tools",
    "tool_pack": "trialrun.tools",
    "ToolContext": "trialrun.tools",
    "model_provider": "trialrun.models",
    "pass_hat_k": "trialrun.metrics",
    "pass_at_k": "trialrun.metrics",
    "summarize": "trialrun.metrics",
    "Verdict": "trialrun.core",
    "ToolCallRecord": "trialrun.core",
    "UserError": "trialrun.errors",
    "ToolError": "trialrun.errors",
    "RunDir": "trialrun.rundir",
    "ResultLine": "trialrun.rundir",
    "Summary": "trialrun.rundir",
}

__all__ = [
    "__version__",
    "AfterRun",
    "FollowUp",
    "Report",
    "Filters",
    "GraderConfig",
    "ResultLine",
    "Run",
    "RunConfig",
    "RunDir",
    "RunHooks",
    "Summary",
    "Task",
    "ToolCallRecord",
    "ToolContext",
    "ToolError",
    "TrialView",
    "UserError",
    "Verdict",
    "bless",
    "compare",
    "gate",
    "grader",
    "load_tasks",
    "model_provider",
    "pass_at_k",
    "pass_hat_k",
    "report",
    "run",
    "run_async",
    "summarize",
    "tool",
    "tool_pack",
]

if TYPE_CHECKING:
    from trialrun.core import ToolCallRecord, Verdict
    from trialrun.errors import ToolError, UserError
    from trialrun.graders import GraderConfig, TrialView, grader
    from trialrun.metrics import pass_at_k, pass_hat_k, summarize
    from trialrun.models import model_provider
    from trialrun.rundir import ResultLine, RunDir, Summary
    from trialrun.runner import Filters, Run, RunConfig, RunHooks
    from trialrun.tasks import Task, load_tasks
    from trialrun.tools import ToolContext, tool, tool_pack
    from trialrun.workflow import (
        AfterRun,
        FollowUp,
        Report,
        bless,
        compare,
        gate,
        report,
        run,
        run_async,
    )


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
