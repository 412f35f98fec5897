"""τ-bench's leaderboard figures from an imported run: pass^k for k = 1…n as τ-bench
defines it (its success is trialrun's solve: the reward 1), the mean over tasks of
C(c,k)/C(n,k), exact (fractions), from the run's summary."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from trialrun.metrics import pass_hat_k_fraction, summarize_rundir
from trialrun.rundir import RunDir


def solve_curve(run_dir: Path | str) -> list[tuple[int, Fraction]]:
    """(k, τ-bench's pass^k) for k = 1 … the smallest number of counted trials of a task."""
    summary = summarize_rundir(RunDir.open(run_dir))
    counts = [(row.n, row.solved) for row in summary.tasks if row.n]
    top = min((n for n, _ in counts), default=0)
    return [
        (k, sum((pass_hat_k_fraction(n, c, k) for n, c in counts), Fraction(0)) / len(counts))
        for k in range(1, top + 1)
    ]
