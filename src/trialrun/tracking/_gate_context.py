"""What a gate's rules read: one model's covered tasks and its comparison with the baseline."""

from __future__ import annotations

from dataclasses import dataclass, field

from trialrun.rundir import Baseline
from trialrun.tracking._compare import compare_views
from trialrun.tracking._comparison import Comparison
from trialrun.tracking._counts import view_of_baseline, view_of_run
from trialrun.tracking._gate_config import GateConfig
from trialrun.tracking._gate_result import RuleResult
from trialrun.tracking._run_data import RunData, TaskRecord
from trialrun.tracking._settings import DEFAULT_ALPHA


@dataclass(slots=True)
class GateContext:
    """What every rule reads: one model's covered tasks and its comparison, if any."""

    gate: str
    model: str
    config: GateConfig
    covered: list[TaskRecord]  # the model's tasks in this gate
    baseline_label: str | None = None
    comparison: Comparison | None = None  # blocking tasks vs the baseline (None: no baseline)
    full: Comparison | None = None  # every covered task vs the baseline
    baseline_suites: dict[str, str] = field(default_factory=dict)  # baseline task id → suite

    @property
    def blocking(self) -> list[TaskRecord]:
        """Covered tasks of the config's `blocking_policy`: the ones the insufficient-data,
        regression, latency/cost and rate rules fail on."""
        return [r for r in self.covered if self.config.blocks(r.policy)]


@dataclass(slots=True)
class Outcome:
    """What one rule adds to the gate: its results and its notes."""

    rules: list[RuleResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def gate_context(
    gate: str,
    run: RunData,
    model: str,
    config: GateConfig,
    baseline: Baseline | None,
    baseline_label: str | None,
    alpha: float = DEFAULT_ALPHA,
    method: str = "exact",
) -> GateContext:
    """One model's covered and blocking tasks, compared with its baseline when there is one."""
    covered = [r for r in run.for_model(model) if r.in_gate(gate)]
    ctx = GateContext(gate, model, config, covered, baseline_label)
    if baseline is not None:
        before, after = view_of_baseline(baseline), view_of_run(run, model)
        against = baseline_label or "baseline"
        ctx.baseline_suites = {t: str(c.suite or "golden") for t, c in before.tasks.items()}
        blocking = {r.task_id for r in ctx.blocking}
        every = {r.task_id for r in covered}
        ctx.comparison = compare_views(
            before, after, against=against, alpha=alpha, task_filter=blocking, method=method
        )
        # every covered task blocking (the usual case): the same comparison, made once
        # (its task deltas and pooled latencies are not held twice)
        ctx.full = ctx.comparison if every == blocking else compare_views(
            before, after, against=against, alpha=alpha, task_filter=every, method=method
        )
    return ctx
