"""Estimators (pass^k, pass@k) and run summaries recomputed from results.jsonl."""

from trialrun.metrics._estimators import (
    pass_at_k,
    pass_at_k_fraction,
    pass_hat_k,
    pass_hat_k_fraction,
)
from trialrun.metrics._summary import (
    aggregate,
    current_summary,
    is_infra,
    percentile,
    summarize,
    summarize_run,
    task_row,
)

__all__ = [
    "aggregate",
    "current_summary",
    "is_infra",
    "pass_at_k",
    "pass_at_k_fraction",
    "pass_hat_k",
    "pass_hat_k_fraction",
    "percentile",
    "summarize",
    "summarize_run",
    "task_row",
]
