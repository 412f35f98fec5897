"""Baselines, comparisons told apart from noise, CI gates and the published table."""

from trialrun.tracking._baseline import (
    FORMAT,
    baseline_name,
    baseline_path,
    build_baseline,
    import_scribe_baseline,
    load_baseline,
    write_baseline,
)
from trialrun.tracking._bless import Blessed, bless, refusals
from trialrun.tracking._compare import (
    BaselineMatch,
    Comparison,
    TaskDelta,
    compare,
    compare_baselines,
    compare_runs,
    compare_with_baselines,
    comparison_lines,
    render_markdown,
    render_terminal,
)
from trialrun.tracking._gate_config import GateConfig, gate_config
from trialrun.tracking._gates import GateResult, ModelGate, RuleResult, run_gate
from trialrun.tracking._leaderboard import Leaderboard, Row, build_leaderboard
from trialrun.tracking._run_data import RunData, TaskRecord, load_run
from trialrun.tracking._scribe_baseline import convert_scribe, is_scribe_baseline
from trialrun.tracking._stats import fisher_one_sided, fisher_power, trials_for_drop

__all__ = [
    "FORMAT",
    "BaselineMatch",
    "Blessed",
    "Comparison",
    "GateConfig",
    "GateResult",
    "Leaderboard",
    "ModelGate",
    "Row",
    "RuleResult",
    "RunData",
    "TaskDelta",
    "TaskRecord",
    "baseline_name",
    "baseline_path",
    "bless",
    "build_baseline",
    "build_leaderboard",
    "compare",
    "compare_baselines",
    "compare_runs",
    "compare_with_baselines",
    "comparison_lines",
    "convert_scribe",
    "fisher_one_sided",
    "fisher_power",
    "gate_config",
    "import_scribe_baseline",
    "is_scribe_baseline",
    "load_baseline",
    "load_run",
    "refusals",
    "render_markdown",
    "render_terminal",
    "run_gate",
    "trials_for_drop",
    "write_baseline",
]
