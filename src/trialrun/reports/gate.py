"""A gate's result as the lines `trialrun gate` prints."""

from __future__ import annotations

from trialrun.reports._verdict import mean_solve_text
from trialrun.reports.comparison import comparison_lines
from trialrun.tracking import GateResult, RuleResult

TAGS = {"failed": "FAIL", "skipped": "skip", "passed": "ok  ", "warned": "warn"}


def over(rule: RuleResult) -> str:
    """Over how many tasks a rule was judged: " [over 4 of 8 tasks; 4 insufficient]"."""
    if rule.judged is None:
        return ""
    if rule.of is None or rule.of == rule.judged:
        return f" [over {_tasks(rule.judged)}]"
    why = f"; {rule.left_out}" if rule.left_out else ""
    return f" [over {rule.judged} of {_tasks(rule.of)}{why}]"


def _tasks(n: int) -> str:
    return f"{n} task" if n == 1 else f"{n} tasks"


def gate_lines(result: GateResult) -> list[str]:
    """The verdict, then per model the mean solve rate against the baseline (as every
    surface quotes it), each rule (FAIL/skip/ok/warn) and the notes.

    The nightly gate also lists the whole comparison, improvements included.
    """
    status = "PASSED" if result.passed else f"FAILED ({len(result.failures)} rule(s))"
    out = [f"gate {result.gate}: {status} — {result.run_dir}"]
    for m in result.models:
        out.append(
            f"{m.model}: {m.blocking} blocking of {m.covered} covered task(s); baseline "
            f"{m.baseline or 'none'}"
        )
        if m.comparison is not None and result.gate != "nightly":  # nightly lists it all
            c = m.comparison
            out.append(f"  {mean_solve_text(c)} over {_tasks(len(c.tasks))} compared")
        for r in m.rules:
            message = f": {r.message}" if r.message else ""
            out.append(f"  {TAGS[r.status]} {r.rule}{over(r)}{message}")
        if result.gate == "nightly" and m.comparison is not None:
            out.extend("  " + line for line in comparison_lines(m.comparison, only_drops=False))
        out.extend(f"  note: {n}" for n in m.notes)
    return out
