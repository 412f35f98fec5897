"""Estimators (pass^k, pass@k) and run summaries recomputed from results.jsonl."""

from trialrun.metrics._estimators import (
    pass_at_k,
    pass_at_k_fraction,
    pass_hat_k,
    pass_hat_k_fraction,
)
from trialrun.metrics._summary import aggregate, is_infra, percentile, summarize, task_row

__all__ = [
    "aggregate",
    "is_infra",
    "pass_at_k",
    "pass_at_k_fraction",
    "pass_hat_k",
    "pass_hat_k_fraction",
    "percentile",
    "summarize",
    "task_row",
]
