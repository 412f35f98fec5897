"""The drift rule: a task solved k/k in the baseline that is below k/k now.

Scribe calls a stable task turning flaky "a real signal", though one failed trial of five
is within noise for the exact test. Every gate notes it; a gate with `fail_on_drift`
fails on it (for the tasks its `blocking_policy` blocks).
"""

from __future__ import annotations

from trialrun.tracking._comparison import solved_every_trial
from trialrun.tracking._gate_context import GateContext, Outcome
from trialrun.tracking._gate_result import RuleResult

NAME = "drift"
WHAT = "drift (solved k/k in the baseline, below k/k now)"


def _names(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def drift(ctx: GateContext) -> Outcome:
    """A note naming every drifted task; with `fail_on_drift`, a rule failing on the
    drifted tasks that block."""
    if ctx.full is None:  # no baseline: the regression rule already says so
        return Outcome()
    drifted = ctx.full.drifts
    described = [f"{t.task_id} {t.describe()} [{t.label}]" for t in drifted]
    if not ctx.config.fail_on_drift:
        return Outcome(notes=[f"{WHAT}: {_names(described)}"] if drifted else [])
    policy = {r.task_id: r.policy for r in ctx.covered}
    blocking = [t for t in drifted if ctx.config.blocks(policy.get(t.task_id, t.policy))]
    stable = [t for t in ctx.full.tasks if solved_every_trial(t.before)]
    out = Outcome()
    if blocking:
        text = _names([f"{t.task_id} {t.describe()} [{t.label}]" for t in blocking])
        out.rules.append(
            RuleResult(NAME, "failed", text, [t.task_id for t in blocking], judged=len(stable))
        )
    else:
        out.rules.append(RuleResult(NAME, "passed", judged=len(stable)))
    others = [d for t, d in zip(drifted, described, strict=True) if t not in blocking]
    if others:
        out.notes.append(f"{WHAT}, not blocking here: {_names(others)}")
    return out
