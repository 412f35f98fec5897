"""Gates: rules over a run (and its baseline) → passed / failed, for CI exit codes.

A task is covered by a gate when its `gates` flags (run.json `tasks[].gates`, else its
suite's defaults) include it. Safety violations, forbidden tool calls and the per-suite
thresholds judge every covered task whatever its policy; the ALWAYS_PASSES rule judges
every covered ALWAYS_PASSES task (any counted trial not solved fails it); the
insufficient-data, regression, latency/cost and rate rules fail only on covered tasks
matching the gate's `blocking_policy` (merge: ALWAYS_PASSES), and a USUALLY_PASSES
regression is a note unless `fail_on_usually_regression` or its suite is in
`regression_blocks_any_policy_in` (merge and release: golden). The coverage rules
(`_coverage_rules`) fail when a `required_suites` suite or a baseline task did not run.
Rules that need a baseline are skipped, with a note, when there is none. Each result
says over how many tasks it was judged (`judged` of `of`).

The gate is the table `RULES`: each rule reads one `GateContext` and returns its results
and notes; a rule the gate's config leaves off returns nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.rundir import Baseline, RunDirLimits
from trialrun.tracking._baseline import baseline_path, load_baseline
from trialrun.tracking._comparison import TaskDelta
from trialrun.tracking._coverage_rules import missing_baseline_tasks, missing_suites
from trialrun.tracking._drift_rule import drift
from trialrun.tracking._gate_config import gate_config
from trialrun.tracking._gate_context import GateContext, Outcome, gate_context
from trialrun.tracking._gate_result import GateResult, ModelGate, RuleResult
from trialrun.tracking._run_data import RunData, TaskRecord, load_run
from trialrun.tracking._settings import (
    configured_alpha,
    configured_method,
    default_baselines_dir,
)
from trialrun.tracking._spend_rules import cost, latency
from trialrun.tracking._suite_significance import suite_test
from trialrun.tracking._trial_tally import Offenders

FORBIDDEN_GRADER = "forbiddenTools"
ALWAYS = "ALWAYS_PASSES"
EPS = 1e-12
# (TaskRecord figure, its name, how a task's counts are quoted when it is below)
RATES: tuple[tuple[str, str, Callable[[TaskRecord], str]], ...] = (
    ("pass_k", "pass^k", lambda r: f"passed {r.passed}/{r.pass_n}"),
    ("solve_k", "solve^k", lambda r: f"solved {r.solved}/{r.solve_n}"),
    ("pass_at_k", "pass@k", lambda r: f"solved {r.solved}/{r.solve_n}"),
)


def _names(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _findings(
    records: list[TaskRecord], offenders: Callable[[TaskRecord], Offenders], with_reason: bool
) -> tuple[list[str], list[str]]:
    """(task descriptions, task ids) of records with offending trials; `with_reason` adds
    the first such trial's safety reason."""
    described, ids = [], []
    for r in records:
        hits = offenders(r)
        if hits.count:
            ids.append(r.task_id)
            first = r.trials.first_safety if with_reason else None
            more = f"; trial {first[0]}: {first[1]}" if first and first[1] else ""
            described.append(f"{r.task_id} (trial {hits.names()}{more})")
    return described, ids


def _trial_rule(
    ctx: GateContext,
    name: str,
    offenders: Callable[[TaskRecord], Offenders],
    enabled: bool,
    with_reason: bool = False,
) -> Outcome:
    """Fails on any covered task, whatever its policy, with an offending trial."""
    if not enabled:
        return Outcome()
    described, ids = _findings(ctx.covered, offenders, with_reason)
    status = "failed" if described else "passed"
    return Outcome([RuleResult(name, status, _names(described), ids, judged=len(ctx.covered))])


def _over(judged: int, of: int | None = None, why: str = "") -> dict[str, Any]:
    """A RuleResult's `judged`, `of` and `left_out` ("4 insufficient") fields."""
    left = f"{of - judged} {why}" if of is not None and of > judged and why else ""
    return {"judged": judged, "of": of, "left_out": left}


def _rate_rule(
    name: str,
    records: list[TaskRecord],
    attr: str,
    minimum: float,
    quote: Callable[[TaskRecord], str],
    *,
    each_task: bool = False,
) -> RuleResult:
    """The mean of a per-task figure over `records` must reach `minimum` (with `each_task`:
    every task's own figure). Tasks without the figure (insufficient data) are left out."""
    values = [(r, getattr(r, attr)) for r in records if getattr(r, attr) is not None]
    counts = _over(len(values), len(records), "insufficient")
    if not values:
        return RuleResult(name, "skipped", "no task with a value", **counts)
    rate = sum(v for _, v in values) / len(values)
    below = [r for r, v in values if v < minimum - EPS]
    quoted = _names([f"{r.task_id} ({quote(r)})" for r in below])
    ids = [r.task_id for r in below]
    if each_task:
        if below:
            text = f"{len(below)} task(s) below {minimum * 100:.1f}%: {quoted}"
            return RuleResult(name, "failed", text, ids, **counts)
        return RuleResult(name, "passed", f"every task ≥ {minimum * 100:.1f}%", **counts)
    if rate < minimum - EPS:
        text = f"{rate * 100:.1f}% < {minimum * 100:.1f}%; below: {quoted}"
        return RuleResult(name, "failed", text, ids, **counts)
    return RuleResult(name, "passed", f"{rate * 100:.1f}% ≥ {minimum * 100:.1f}%", **counts)


# --- the rules -------------------------------------------------------------------------


def empty(ctx: GateContext) -> Outcome:
    """A gate that covers no task of the run (fails unless `allow_empty`)."""
    if ctx.covered:
        return Outcome()
    status = "warned" if ctx.config.allow_empty else "failed"
    message = f"no task of this run is in the {ctx.gate} gate"
    return Outcome([RuleResult("no tasks", status, message, judged=0)])


def safety(ctx: GateContext) -> Outcome:
    """No trial of a covered task, whatever its policy, may have a safety violation."""
    return _trial_rule(ctx, "safety violation", lambda r: r.trials.safety_trials,
                       ctx.config.safety_violations, True)


def forbidden(ctx: GateContext) -> Outcome:
    """No trial of a covered task, whatever its policy, may call a forbidden tool."""
    return _trial_rule(
        ctx, "forbidden tool called", lambda r: r.trials.forbidden, ctx.config.forbidden_tools
    )


def always_passes(ctx: GateContext) -> Outcome:
    """An ALWAYS_PASSES task promises every trial: one counted trial not solved fails it,
    whatever the baseline. Infra-error and undetermined trials are the insufficient-data
    rule's (they are never counted as solved)."""
    if not ctx.config.always_passes_every_trial or not ctx.covered:
        return Outcome()
    name = "ALWAYS_PASSES not solved"
    tasks = [r for r in ctx.covered if r.policy == ALWAYS]
    described, ids = [], []
    for r in tasks:
        trials = r.trials.not_solved
        if trials.count:
            ids.append(r.task_id)
            described.append(f"{r.task_id} (solved {r.solved}/{r.solve_n}; trial {trials.names()})")
    status = "failed" if described else "passed"
    counts = _over(len(tasks), len(ctx.covered), "not ALWAYS_PASSES")
    return Outcome([RuleResult(name, status, _names(described), ids, **counts)])


def insufficient(ctx: GateContext) -> Outcome:
    """Every blocking task needs its pass^k and solve^k figures (k counted trials)."""
    out = Outcome()
    short = [r for r in ctx.blocking if r.insufficient]
    judged = len(ctx.blocking)
    if short:
        described = [
            f"{r.task_id} ({r.solve_n} counted of k={r.k}; {r.infra_errors} infra, "
            f"{r.undetermined} undetermined)"
            for r in short
        ]
        status = "warned" if ctx.config.allow_insufficient else "failed"
        out.rules.append(
            RuleResult(
                "insufficient data",
                status,
                _names(described),
                [r.task_id for r in short],
                judged=judged,
            )
        )
    elif ctx.blocking:
        out.rules.append(RuleResult("insufficient data", "passed", judged=judged))
    noisy = [r for r in ctx.covered if not r.insufficient and (r.infra_errors or r.undetermined)]
    if noisy:
        described = [
            f"{r.task_id} ({r.infra_errors} infra, {r.undetermined} undetermined)" for r in noisy
        ]
        out.notes.append("left out of the solve figures: " + _names(described))
    return out


def no_baseline(ctx: GateContext) -> Outcome:
    """Says, once, that the baseline rules below are skipped."""
    if ctx.comparison is not None or not ctx.config.needs_baseline:
        return Outcome()
    return Outcome(
        notes=[
            f"no baseline ({ctx.baseline_label or 'none given'}): regression, latency and cost "
            "rules skipped"
        ]
    )


def _regression_blocks(ctx: GateContext, task: TaskDelta) -> bool:
    """Whether this compared task's regression can fail the gate (its policy in the run)."""
    policy = next((r.policy for r in ctx.covered if r.task_id == task.task_id), ALWAYS)
    return ctx.config.regression_blocks(policy, task.suite)


def regression(ctx: GateContext) -> Outcome:
    """No covered task of `regression_suites` that blocks may regress (Fisher p ≤ alpha).

    A task blocks by `blocking_policy`, or in a suite of `regression_blocks_any_policy_in`
    (merge: golden) whatever its policy; any other USUALLY_PASSES task's regression blocks
    only with `fail_on_usually_regression`. Every other regression the exact test flags is
    a note.
    """
    suites = ctx.config.regression_suites
    if not suites:
        return Outcome()
    name = f"{'/'.join(suites)} regression"
    members = [r for r in ctx.covered if r.suite in suites]
    if ctx.full is None:
        return Outcome([RuleResult(name, "skipped", "no baseline", judged=0, of=len(members))])
    policy = {r.task_id: r.policy for r in ctx.covered}
    judged = [t for t in ctx.full.tasks if t.suite in suites]
    regs = [t for t in judged if t.label == "regression" and _regression_blocks(ctx, t)]
    counts = _over(len(judged), len(members), "not in the baseline")
    out = Outcome()
    if regs:
        described = _names([f"{t.task_id} {t.describe()}" for t in regs])
        out.rules.append(RuleResult(name, "failed", described, [t.task_id for t in regs], **counts))
    else:
        out.rules.append(RuleResult(name, "passed", **counts))
    noise = [t for t in judged if t.label == "within noise"]
    if noise:
        out.notes.append(
            "within noise (exact test): " + _names([f"{t.task_id} {t.describe()}" for t in noise])
        )
    others = [t for t in ctx.full.regressions if t not in regs]
    if others:
        out.notes.append(
            "regression, not blocking here: "
            + _names([f"{t.task_id} {t.describe()} [{policy.get(t.task_id)}]" for t in others])
        )
    return out


def suite_regression(ctx: GateContext) -> Outcome:
    """`fail_on_suite_regression`: the stratified exact test over the compared tasks of
    `regression_suites` that can block (as for the per-task rule) may not flag a drop in
    solve or pass."""
    suites = ctx.config.regression_suites
    if not suites or not ctx.config.fail_on_suite_regression:
        return Outcome()
    name = f"{'/'.join(suites)} suite-level regression"
    if ctx.full is None:  # the per-task regression rule already says "no baseline"
        return Outcome()
    judged = [t for t in ctx.full.tasks if t.suite in suites and _regression_blocks(ctx, t)]
    solve = [(t.before.solved, t.before.solve_n, t.after.solved, t.after.solve_n) for t in judged]
    passed = [(t.before.passed, t.before.n, t.after.passed, t.after.n) for t in judged]
    method = ctx.full.suite_tests[0].method if ctx.full.suite_tests else "exact"
    alpha = ctx.full.alpha
    tests = [suite_test("solve", solve, alpha, method), suite_test("pass", passed, alpha, method)]
    flagged = [s for s in tests if s.verdict == "regression"]
    if flagged:
        text = "; ".join(s.describe() for s in flagged)
        return Outcome([RuleResult(name, "failed", text, judged=len(judged))])
    return Outcome([RuleResult(name, "passed", tests[0].describe(), judged=len(judged))])


def rates(ctx: GateContext) -> Outcome:
    """`min_pass_k_rate`, `min_solve_k_rate`, `min_pass_at_k_rate` over the blocking tasks."""
    out = Outcome()
    for attr, label, quote in RATES:
        minimum = getattr(ctx.config, f"min_{attr}_rate")
        if minimum is not None:
            out.rules.append(_rate_rule(f"{label} rate", ctx.blocking, attr, minimum, quote))
    return out


def suite_rates(ctx: GateContext) -> Outcome:
    """`[gates.<gate>.suites.<suite>]` minimum rates over that suite's covered tasks
    (of the threshold's `policy`, by default whatever their policy)."""
    out = Outcome()
    for suite, threshold in ctx.config.suites.items():
        members = [
            r for r in ctx.covered if r.suite == suite and threshold.policy in ("any", r.policy)
        ]
        for attr, label, quote in RATES:
            minimum = getattr(threshold, f"min_{attr}")
            if minimum is None:
                continue
            name = f"{suite} {label} rate"
            if not members:
                out.rules.append(
                    RuleResult(name, "skipped", f"no {suite} task in this run", judged=0)
                )
            else:
                out.rules.append(
                    _rate_rule(
                        name, members, attr, minimum, quote, each_task=threshold.each_task
                    )
                )
    return out


Rule = Callable[[GateContext], Outcome]
RULES: list[Rule] = [
    empty,
    safety,
    forbidden,
    always_passes,
    insufficient,
    missing_suites,
    missing_baseline_tasks,
    no_baseline,
    regression,
    suite_regression,
    drift,
    latency,
    cost,
    rates,
    suite_rates,
]


# --- running a gate ---------------------------------------------------------------------


def evaluate_model(ctx: GateContext) -> ModelGate:
    """Every rule of `RULES` over one model's context, in order."""
    rules: list[RuleResult] = []
    notes: list[str] = []
    for rule in RULES:
        outcome = rule(ctx)
        rules.extend(outcome.rules)
        notes.extend(outcome.notes)
    shown = ctx.full if ctx.gate == "nightly" else ctx.comparison
    label = ctx.baseline_label if ctx.comparison is not None else None
    return ModelGate(ctx.model, label, len(ctx.covered), len(ctx.blocking), rules, notes, shown)


def run_gate(
    gate: str,
    run_dir: RunData | Path | str,
    *,
    baseline: Path | str | None = None,
    baselines_dir: Path | str | None = None,
    config: ProjectConfig | None = None,
) -> GateResult:
    """Evaluate `gate` (merge | nightly | release) on a run; see the module docstring.
    `config`: the project's trialrun.toml as its entry point loaded it (`[gates.*]`,
    `[compare]`, `[baselines] dir`, `[rundir]`); None: no project file, every default.
    `run_dir` may be the run already read (`load_run`): it is then not read again."""
    project = config if config is not None else ProjectConfig()
    settings = gate_config(gate, project)
    alpha = settings.alpha if settings.alpha is not None else configured_alpha(project)
    method = configured_method(project)
    if isinstance(run_dir, RunData):
        run = run_dir
    else:
        run = load_run(run_dir, limits=RunDirLimits.of(project), keep_task_entries=False)
    if not run.models:
        raise UserError(f"{run.path}: no finished trials; nothing to gate")
    folder = Path(baselines_dir) if baselines_dir is not None else default_baselines_dir(project)
    given = load_baseline(baseline) if baseline is not None else None
    models: list[ModelGate] = []
    for spec in run.models:
        record = run.for_model(spec)[0]
        found: Baseline | None
        if given is not None and (
            len(run.models) == 1
            or (given.provider, given.model) == (record.provider, record.model_id)
        ):
            found, label = given, str(baseline)
        else:
            path = baseline_path(folder, record.provider, record.model_id)
            found, label = (load_baseline(path) if path.is_file() else None), str(path)
        ctx = gate_context(gate, run, spec, settings, found, label, alpha, method)
        models.append(evaluate_model(ctx))
    return GateResult(gate, str(run.path), models)
