"""τ-bench environments: a checkout's domains (airline, retail) with trialrun's own
implementation of their tools, τ-bench's reward, and the benchmark that runs them
(`[[benchmarks]] name = "taubench"`), its tool pack and its grader (both `taubench`).

    domain = load_domain(Path("tau-bench"), "airline")        # split "test"
    state = domain.fresh_state()
    state.call("get_user_details", {"user_id": "mia_li_3668"})  # output text; errors as text
    score(domain, domain.tasks[0], state, replies).reward      # 1.0 or 0.0, with .reason
"""

from trialrun.benchmarks.taubench._benchmark import TauBench
from trialrun.benchmarks.taubench._domain import TauDomain, load_domain
from trialrun.benchmarks.taubench._grading import TauBenchConfig, agent_replies, counted_calls
from trialrun.benchmarks.taubench._layout import CLONE_HINT, DOMAINS, DomainLayout, locate
from trialrun.benchmarks.taubench._pack import taubench_pack
from trialrun.benchmarks.taubench._reward import output_found, score
from trialrun.benchmarks.taubench._state import TauState
from trialrun.benchmarks.taubench._taskfile import read_tasks
from trialrun.benchmarks.taubench._types import (
    STOP_SIGNAL,
    TERMINATING_TOOL,
    TauAction,
    TauReward,
    TauTask,
    ToolOutcome,
)

__all__ = [
    "CLONE_HINT",
    "DOMAINS",
    "STOP_SIGNAL",
    "TERMINATING_TOOL",
    "DomainLayout",
    "TauBench",
    "TauBenchConfig",
    "TauAction",
    "TauDomain",
    "TauReward",
    "TauState",
    "TauTask",
    "ToolOutcome",
    "agent_replies",
    "counted_calls",
    "load_domain",
    "locate",
    "output_found",
    "read_tasks",
    "score",
    "taubench_pack",
]
