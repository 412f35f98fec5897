"""Coverage rules: a gate judges only what ran, so what did not run must be named.

`required_suites` (merge: golden, adversarial, failure_replays, the suites whose tasks
default to the merge gate; release: all four; nightly: none) must each have a task in the
gate, and every task of the model's baseline in one of those suites must be in the run.
`allow_missing` opts out: `true` for everything, or a list of suite names and task-id
globs (`["failure_replays", "scribe-*"]`); what it allows is reported as a warning.
A gate that covers no task at all is the `empty` rule's, so these say nothing then.
"""

from __future__ import annotations

from trialrun.tracking._gate_context import GateContext, Outcome
from trialrun.tracking._gate_result import RuleResult

SUITE_RULE = "suite missing"
TASK_RULE = "baseline task missing"


def _names(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _allowed(items: list[str]) -> str:
    return f"allowed by allow_missing: {_names(items)}" if items else ""


def missing_suites(ctx: GateContext) -> Outcome:
    """Each of `required_suites` needs a task in this gate (unless `allow_missing`)."""
    required = ctx.config.required_suites
    if not required or not ctx.covered:
        return Outcome()
    present = {r.suite for r in ctx.covered}
    missing = [s for s in required if s not in present]
    blocking = [s for s in missing if not ctx.config.allows_missing(s)]
    allowed = [s for s in missing if s not in blocking]
    judged = len(ctx.covered)
    if blocking:
        text = (
            f"no {', '.join(blocking)} task in this run's {ctx.gate} gate; run the suite, or "
            f"list it in trialrun.toml under [gates.{ctx.gate}] allow_missing"
        )
        text += f"; {_allowed(allowed)}" if allowed else ""
        return Outcome([RuleResult(SUITE_RULE, "failed", text, judged=judged)])
    if allowed:
        return Outcome([RuleResult(SUITE_RULE, "warned", _allowed(allowed), judged=judged)])
    text = f"each of {', '.join(required)} ran"
    return Outcome([RuleResult(SUITE_RULE, "passed", text, judged=judged)])


def missing_baseline_tasks(ctx: GateContext) -> Outcome:
    """Every task of the model's baseline in one of `required_suites` must be in the run
    (unless `allow_missing` names it or its suite). Without a baseline: nothing to check."""
    required = ctx.config.required_suites
    if not required or not ctx.covered or ctx.full is None:
        return Outcome()
    expected = [t for t, suite in ctx.baseline_suites.items() if suite in required]
    missing = [t for t in ctx.full.missing_tasks if t in expected]
    blocking = [
        t for t in missing if not ctx.config.allows_missing(t, ctx.baseline_suites[t])
    ]
    allowed = [t for t in missing if t not in blocking]
    judged = len(expected)
    if blocking:
        described = _names([f"{t} ({ctx.baseline_suites[t]})" for t in blocking])
        text = (
            f"in the baseline, not in this run: {described}; run them, or list them in "
            f"trialrun.toml under [gates.{ctx.gate}] allow_missing"
        )
        text += f"; {_allowed(allowed)}" if allowed else ""
        return Outcome([RuleResult(TASK_RULE, "failed", text, blocking, judged=judged)])
    if allowed:
        return Outcome([RuleResult(TASK_RULE, "warned", _allowed(allowed), allowed, judged=judged)])
    return Outcome([RuleResult(TASK_RULE, "passed", judged=judged)])
