"""Compare a run with a baseline (or another run): regressions told apart from noise.

Both sides are read as per-task counts (`CountsView`), so a blessed file, a Scribe file
and another run directory compare alike. A task whose passed or solved fraction dropped
is a **regression** when the one-sided Fisher exact test on its counts gives p ≤ alpha
(`dropped_p_value`, `regressed`), else **within noise**. Rendering lives in `trialrun.reports`.
"""

from __future__ import annotations

from pathlib import Path

from trialrun.core import parse_model_spec
from trialrun.errors import UserError
from trialrun.rundir import Baseline, RunDirLimits
from trialrun.tracking._aggregate import TaskCounts, aggregate_counts
from trialrun.tracking._baseline import baseline_path, load_baseline
from trialrun.tracking._comparison import (
    DETECT_DROP,
    DETECT_POWER,
    BaselineMatch,
    Comparison,
    OneSided,
    Side,
    TaskDelta,
    is_drift,
)
from trialrun.tracking._counts import (
    CountsView,
    pooled_figures,
    view_of_baseline,
    view_of_run,
)
from trialrun.tracking._run_data import RunData, load_run
from trialrun.tracking._settings import DEFAULT_ALPHA, DEFAULT_METHOD
from trialrun.tracking._spend_samples import spend_samples
from trialrun.tracking._stats import trials_for_drop
from trialrun.tracking._suite_significance import SuiteTest, suite_test
from trialrun.tracking._task_significance import dropped_p_value, regressed


def _side(t: TaskCounts) -> Side:
    return Side(t.pass_n, t.passed, t.solved, t.solve_n, t.pass_k, t.solve_k)


def _task_delta(before: TaskCounts, after: TaskCounts, alpha: float) -> TaskDelta:
    b, a = _side(before), _side(after)
    p_pass = dropped_p_value(b.passed, b.n, a.passed, a.n)
    p_solve = dropped_p_value(b.solved, b.solve_n, a.solved, a.solve_n)
    pass_dropped, solve_dropped = p_pass is not None, p_solve is not None
    if pass_dropped or solve_dropped:
        label = "regression" if regressed((p_pass, p_solve), alpha) else "within noise"
    elif (a.solve_rate or 0) > (b.solve_rate or 0) or (a.pass_rate or 0) > (b.pass_rate or 0):
        label = "improved"
    else:
        label = "unchanged"
    needed = None
    if label in ("regression", "within noise"):
        rate = b.solve_rate if solve_dropped else b.pass_rate
        if rate is not None:
            needed = trials_for_drop(rate, DETECT_DROP, DETECT_POWER, alpha)
    return TaskDelta(
        task_id=after.task_id,
        suite=str(after.suite or before.suite or "golden"),
        tier=after.tier or before.tier,
        policy=str(after.policy or before.policy or "ALWAYS_PASSES"),
        before=b,
        after=a,
        pass_dropped=pass_dropped,
        solve_dropped=solve_dropped,
        p_pass=p_pass,
        p_solve=p_solve,
        label=label,
        trials_needed=needed,
        drift=is_drift(b, a),
    )


def suite_tests(
    before: list[TaskCounts], after: list[TaskCounts], alpha: float, method: str
) -> list[SuiteTest]:
    """The stratified suite test on solve (undetermined left out) and on pass."""
    pairs = list(zip(before, after, strict=True))
    solve = [(b.solved, b.solve_n, a.solved, a.solve_n) for b, a in pairs]
    passed = [(b.passed, b.pass_n, a.passed, a.pass_n) for b, a in pairs]
    return [suite_test("solve", solve, alpha, method), suite_test("pass", passed, alpha, method)]


def compare_views(
    before: CountsView,
    after: CountsView,
    *,
    against: str,
    alpha: float = DEFAULT_ALPHA,
    task_filter: set[str] | None = None,
    method: str = "exact",
) -> Comparison:
    """Compare two sides (after = the current run), over `task_filter` when given.

    A filtered-out baseline task still counts as missing when the run lacks it.
    """
    b_tasks, a_tasks = before.tasks, after.tasks
    if task_filter is not None:
        b_tasks = {k: v for k, v in b_tasks.items() if k in task_filter or k not in a_tasks}
        a_tasks = {k: v for k, v in a_tasks.items() if k in task_filter}
    common = [tid for tid in a_tasks if tid in b_tasks]
    b_common = [b_tasks[t] for t in common]
    a_common = [a_tasks[t] for t in common]
    lat_b, cost_b = pooled_figures(b_common)
    lat_a, cost_a = pooled_figures(a_common)
    agg_b = aggregate_counts(b_common)
    observed = agg_b.get("mean_solve_rate")
    notes: list[str] = []
    if before.forced:
        notes.append(f"the baseline was blessed with --force: {before.reason}")
    if not common:
        notes.append("no task in common with the baseline")
    return Comparison(
        model=after.label,
        provider=str(after.provider),
        model_id=str(after.model_id),
        against=against,
        against_run_id=before.run_id,
        alpha=alpha,
        tasks=[_task_delta(b_tasks[tid], a_tasks[tid], alpha) for tid in sorted(common)],
        missing_tasks=sorted(t for t in b_tasks if t not in a_tasks),
        new_tasks=sorted(t for t in a_tasks if t not in b_tasks),
        before=agg_b,
        after=aggregate_counts(a_common),
        latency_p95_before_s=lat_b,
        latency_p95_after_s=lat_a,
        cost_per_trial_before=cost_b,
        cost_per_trial_after=cost_a,
        trials_needed=(
            trials_for_drop(observed, DETECT_DROP, DETECT_POWER, alpha)
            if observed is not None
            else None
        ),
        observed_rate=observed,
        k=after.k,
        notes=notes,
        task_k=sorted({t.k for t in a_common if t.k is not None}),
        suite_tests=suite_tests(b_common, a_common, alpha, method),
        spend=spend_samples(b_common, a_common),
    )


def compare_baselines(
    before: Baseline,
    after: Baseline,
    *,
    against: str,
    alpha: float = DEFAULT_ALPHA,
    task_filter: set[str] | None = None,
) -> Comparison:
    """Compare two baselines (after = the newer one)."""
    return compare_views(
        view_of_baseline(before),
        view_of_baseline(after),
        against=against,
        alpha=alpha,
        task_filter=task_filter,
    )


def _as_run(run: RunData | Path | str, limits: RunDirLimits | None = None) -> RunData:
    return run if isinstance(run, RunData) else load_run(
        run, limits=limits, keep_task_entries=False)


def _pick_model(run: RunData, provider: str, model_id: str) -> str:
    for spec in run.models:
        parsed = parse_model_spec(spec)
        if parsed.provider == provider and parsed.model_id == model_id:
            return spec
    if len(run.models) == 1:
        return run.models[0]
    raise UserError(
        f"{run.path}: no model {provider}:{model_id} in this run (it has "
        f"{', '.join(run.models)}); pass --baseline for one of them"
    )


def _other_run_view(run: RunData, other: RunData, model: str | None) -> tuple[CountsView, str]:
    """The same model in another run (or its only model); `model` defaults to the run's."""
    if model is None:
        if len(run.models) != 1:
            raise UserError(
                f"{run.path}: several models ({', '.join(run.models)}); pick one to compare"
            )
        model = run.models[0]
    if model in other.models:
        other_model = model
    elif len(other.models) == 1:
        other_model = other.models[0]
    else:
        raise UserError(f"{other.path}: no results for model '{model}' to compare with")
    return view_of_run(other, other_model), model


def compare(
    run_dir: RunData | Path | str,
    against: Baseline | RunData | Path | str,
    *,
    model: str | None = None,
    alpha: float = DEFAULT_ALPHA,
    method: str = DEFAULT_METHOD,
) -> Comparison:
    """Compare one model of a run with a baseline (record or file) or with another run dir.

    `model` picks the run's model (spec text); by default the one matching the baseline's
    (provider, model), or the run's only model.
    """
    run = _as_run(run_dir)
    if isinstance(against, Baseline):
        source = against.source or {}
        before, label = view_of_baseline(against), str(source.get("file", "baseline"))
    elif isinstance(against, RunData) or Path(against).is_dir():
        other = _as_run(against)
        before, model = _other_run_view(run, other, model)
        label = str(other.path)
    else:
        before, label = view_of_baseline(load_baseline(against)), str(against)
    spec = model or _pick_model(run, before.provider, before.model_id)
    return compare_views(
        before, view_of_run(run, spec), against=label, alpha=alpha, method=method
    )


def compare_with_baselines(
    run_dir: RunData | Path | str,
    baselines_dir: Path | str = "baselines",
    *,
    alpha: float = DEFAULT_ALPHA,
    method: str = DEFAULT_METHOD,
) -> list[BaselineMatch]:
    """Compare each model of the run with `<baselines_dir>/<provider>-<slug>.json`, if any."""
    run = _as_run(run_dir)
    out: list[BaselineMatch] = []
    for spec in run.models:
        record = run.for_model(spec)[0]
        path = baseline_path(baselines_dir, record.provider, record.model_id)
        comparison = None
        if path.is_file():
            comparison = compare(
                run, load_baseline(path), model=spec, alpha=alpha, method=method
            )
            comparison.against = str(path)
        out.append(BaselineMatch(spec, path, comparison))
    return out


def compare_runs(
    run_dir: RunData | Path | str,
    other_dir: RunData | Path | str,
    *,
    alpha: float = DEFAULT_ALPHA,
    method: str = DEFAULT_METHOD,
    limits: RunDirLimits | None = None,
) -> list[Comparison]:
    """Compare each model of a run with the same model in another run (or the only ones).

    A run given as a folder is read (within `limits`), turned into its per-task counts
    and let go before the other is read: one run's records are held at a time.
    """
    return compare_run_pair(run_dir, other_dir, alpha=alpha, method=method, limits=limits)[0]


def compare_run_pair(
    run_dir: RunData | Path | str,
    other_dir: RunData | Path | str,
    *,
    alpha: float = DEFAULT_ALPHA,
    method: str = DEFAULT_METHOD,
    limits: RunDirLimits | None = None,
) -> tuple[list[Comparison], OneSided]:
    """`compare_runs` with the models it leaves out (`one_sided_models`), each run read
    once and held only while its counts are taken."""
    run = _as_run(run_dir, limits)
    run_path, models = run.path, list(run.models)
    after = {m: view_of_run(run, m) for m in models}
    del run  # read here (or held by the caller): its counts are all that is compared
    other = _as_run(other_dir, limits)
    others = list(other.models)
    sides = _one_sided(models, others)
    if len(models) == 1 and len(others) == 1:
        only = models[0]
        pairs = [(only, only if only in others else others[0])]
    else:
        pairs = [(m, m) for m in models if m in others]
    if not pairs:
        raise UserError(
            f"{other.path}: no model in common with {run_path} "
            f"({', '.join(others)} vs {', '.join(models)})"
        )
    before = {o: view_of_run(other, o) for _, o in pairs}
    label = str(other.path)
    del other
    comparisons = [
        compare_views(before[o], after[m], against=label, alpha=alpha, method=method)
        for m, o in pairs
    ]
    return comparisons, sides


def _one_sided(models: list[str], others: list[str]) -> OneSided:
    if len(models) == 1 and len(others) == 1:
        return OneSided()
    return OneSided(
        only_after=[m for m in models if m not in others],
        only_before=[m for m in others if m not in models],
    )


def one_sided_models(run_dir: RunData | Path | str, other_dir: RunData | Path | str) -> OneSided:
    """The models `compare_runs` leaves out: in one run only (none when each run has one
    model, as those two are compared with each other)."""
    run, other = _as_run(run_dir), _as_run(other_dir)
    return _one_sided(list(run.models), list(other.models))
