"""Baselines, comparisons told apart from noise, CI gates and the published table.

Everything here returns data; `trialrun.reports` renders it.
"""

from trialrun.rundir import baseline_name
from trialrun.tracking._aggregate import TaskCounts
from trialrun.tracking._baseline import (
    FORMAT,
    baseline_path,
    baseline_target,
    build_baseline,
    import_scribe_baseline,
    legacy_baseline_note,
    load_baseline,
    write_baseline,
)
from trialrun.tracking._bless import Blessed, bless, latest_complete_run, refusals
from trialrun.tracking._compare import (
    compare,
    compare_baselines,
    compare_run_pair,
    compare_runs,
    compare_views,
    compare_with_baselines,
    one_sided_models,
)
from trialrun.tracking._comparison import BaselineMatch, Comparison, OneSided, TaskDelta
from trialrun.tracking._counts import CountsView, view_of_baseline
from trialrun.tracking._early_stop import early_stop_rule
from trialrun.tracking._gate_config import GATES, GateConfig, gate_config
from trialrun.tracking._gate_context import GateContext
from trialrun.tracking._gate_result import GateResult, ModelGate, RuleResult
from trialrun.tracking._gates import RULES, run_gate
from trialrun.tracking._leaderboard import TIERS, Leaderboard, Row, build_leaderboard
from trialrun.tracking._power import Plan, SetAside, TaskPlan, plan, suite_power_line
from trialrun.tracking._run_data import RunData, TaskRecord, load_run
from trialrun.tracking._scribe_baseline import convert_scribe, is_scribe_baseline
from trialrun.tracking._settings import (
    DEFAULT_ALPHA,
    DEFAULT_METHOD,
    CompareSettings,
    configured_alpha,
    configured_method,
    default_baselines_dir,
)
from trialrun.tracking._settle import Settlement
from trialrun.tracking._stats import fisher_one_sided, fisher_power, trials_for_drop
from trialrun.tracking._suite_significance import SuiteTest, stratified_p_value, suite_test
from trialrun.tracking._task_significance import dropped_p_value, regressed

__all__ = [
    "GATES",
    "DEFAULT_ALPHA",
    "DEFAULT_METHOD",
    "FORMAT",
    "RULES",
    "TIERS",
    "BaselineMatch",
    "Blessed",
    "Comparison",
    "CompareSettings",
    "CountsView",
    "GateConfig",
    "GateContext",
    "GateResult",
    "Leaderboard",
    "ModelGate",
    "OneSided",
    "Row",
    "RuleResult",
    "Plan",
    "RunData",
    "SuiteTest",
    "TaskCounts",
    "TaskDelta",
    "SetAside",
    "Settlement",
    "TaskPlan",
    "TaskRecord",
    "baseline_name",
    "baseline_path",
    "baseline_target",
    "bless",
    "build_baseline",
    "build_leaderboard",
    "compare",
    "compare_baselines",
    "compare_run_pair",
    "compare_runs",
    "compare_views",
    "compare_with_baselines",
    "configured_alpha",
    "configured_method",
    "convert_scribe",
    "default_baselines_dir",
    "dropped_p_value",
    "early_stop_rule",
    "fisher_one_sided",
    "fisher_power",
    "suite_power_line",
    "gate_config",
    "import_scribe_baseline",
    "is_scribe_baseline",
    "latest_complete_run",
    "legacy_baseline_note",
    "load_baseline",
    "load_run",
    "one_sided_models",
    "plan",
    "refusals",
    "regressed",
    "run_gate",
    "stratified_p_value",
    "suite_test",
    "trials_for_drop",
    "view_of_baseline",
    "write_baseline",
]
