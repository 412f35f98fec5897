"""A comparison's verdict in words, one wording for every surface.

The terminal, the Markdown report, the HTML report, the viewer's compare page and the
gate all quote these: each task's label (the exact test's, and "drift"), the suite-level
test the gate fails on, and the mean solve rate before → after (a solve^k of 0 % on
both sides can hide a drop; the mean solve rate over the trials cannot).
"""

from __future__ import annotations

from typing import Any

from trialrun.reports._format import pct, pp
from trialrun.tracking import Comparison, SuiteTest

SUITE_TAGS = {
    "regression": "SUITE REGRESSION",
    "within noise": "suite within noise",
    "no drop": "suite: no drop",
}
PASS_K_DEFINITION = (
    "pass^k (completed): the chance that k trials all finish without an error; "
    "it says nothing about the answer (solve^k does)"
)


def rate_change(c: Comparison, key: str, label: str) -> str:
    """ "mean solve rate 56.0% → 16.0% (-40.0 pp)"."""
    delta = pp(c.pp(key))
    return f"{label} {pct(c.before.get(key))} → {pct(c.after.get(key))}" + (
        f" ({delta})" if delta else ""
    )


def mean_solve_text(c: Comparison) -> str:
    return rate_change(c, "mean_solve_rate", "mean solve rate")


def suite_text(test: SuiteTest | None) -> str:
    """ "SUITE REGRESSION: solved 14/25 → 4/25 across 5 task(s) (stratified …, p = …)"."""
    if test is None:
        return "suite: no task in common"
    return f"{SUITE_TAGS[test.verdict]}: {test.describe()}"


def counts_text(c: Comparison) -> str:
    """ "0 regression(s), 5 within noise, 1 drift"."""
    return (
        f"{len(c.regressions)} regression(s), {len(c.within_noise)} within noise, "
        f"{len(c.drifts)} drift"
    )


def verdict_page(c: Comparison) -> dict[str, Any]:
    """The verdict as the viewer pages carry it (text made here, shown as is)."""
    suite = c.suite_shown
    return {
        "mean_solve": mean_solve_text(c),
        "suite": suite_text(suite),
        "suite_verdict": suite.verdict if suite else None,
        "suite_p": suite.p_value if suite else None,
        "counts": counts_text(c),
        "drift": [t.task_id for t in c.drifts],
        "tasks": [{
            "task_id": t.task_id, "label": t.label, "drift": t.drift, "verdict": t.verdict,
            "p": t.p_value, "change": t.describe(),
            "before": [t.before.solved, t.before.solve_n],
            "after": [t.after.solved, t.after.solve_n],
        } for t in c.tasks],
    }
