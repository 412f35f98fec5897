"""Estimators (pass^k, pass@k) and run summaries recomputed from results.jsonl."""

from trialrun.metrics._curves import CurvePoint, clopper_pearson, k_curve, mean_curve
from trialrun.metrics._estimators import (
    pass_at_k,
    pass_at_k_fraction,
    pass_hat_k,
    pass_hat_k_fraction,
    wilson_interval,
)
from trialrun.metrics._exact_sum import ZERO, Exact, combined, parts, plus, rounded
from trialrun.metrics._percentile import percentile, percentiles_over
from trialrun.metrics._summary import (
    Summarizer,
    aggregate,
    coverage,
    covering,
    current_summary,
    is_infra,
    stored_current,
    stored_if_covering,
    summarize,
    summarize_run,
    summarize_rundir,
    summarizer_for,
    task_row,
    tracked_values,
    trajectory_row,
)
from trialrun.metrics._tally import NO_COUNTS, Tally, TallyTotals, counted, num
from trialrun.metrics._tracked import METRIC_ALIASES, TRACKED_METRICS, canonical_metric

__all__ = [
    "NO_COUNTS",
    "ZERO",
    "Exact",
    "combined",
    "num",
    "parts",
    "plus",
    "rounded",
    "Summarizer",
    "Tally",
    "TallyTotals",
    "counted",
    "METRIC_ALIASES",
    "TRACKED_METRICS",
    "canonical_metric",
    "CurvePoint",
    "clopper_pearson",
    "k_curve",
    "mean_curve",
    "aggregate",
    "coverage",
    "current_summary",
    "is_infra",
    "pass_at_k",
    "pass_at_k_fraction",
    "pass_hat_k",
    "pass_hat_k_fraction",
    "percentile",
    "percentiles_over",
    "summarize",
    "covering",
    "stored_current",
    "stored_if_covering",
    "summarize_run",
    "summarize_rundir",
    "summarizer_for",
    "task_row",
    "tracked_values",
    "trajectory_row",
    "wilson_interval",
]
