"""The per-task counts a comparison reads, from either side: a baseline or a run.

A baseline's task entries and a run's `TaskRecord`s each have one adapter to `TaskCounts`,
so a run is compared with its baseline (or with another run) without first being turned
into a baseline. Sums keep the baseline file's order of operations, so figures computed
here match the ones a blessed baseline of the same run would give.
"""

from __future__ import annotations

from dataclasses import dataclass

from trialrun.errors import UserError
from trialrun.metrics import SortedRuns
from trialrun.rundir import Baseline
from trialrun.tracking._aggregate import TaskCounts, counts_of_entry
from trialrun.tracking._run_data import RunData, TaskRecord, run_k


@dataclass(slots=True)
class CountsView:
    """One model's side of a comparison: who it is and its tasks, in the side's order."""

    label: str  # the model spec text, e.g. "gemini:gemini-2.5-flash"
    provider: str
    model_id: str
    run_id: str | None
    k: int | None
    tasks: dict[str, TaskCounts]
    forced: bool = False  # a baseline blessed with --force
    reason: str | None = None


def counts_of_record(record: TaskRecord) -> TaskCounts:
    """A run's task × model record as counts (per-trial figures from its counted trials)."""
    return TaskCounts(
        task_id=record.task_id,
        suite=record.suite,
        tier=record.tier,
        policy=record.policy,
        n=record.n,
        passed=record.passed,
        solved=record.solved,
        undetermined=record.undetermined,
        pass_k=record.pass_k,
        solve_k=record.solve_k,
        flaky=record.flaky,
        metrics=record.trials.metrics_view(),  # made when read: no dict, no copy
        k=record.k,
        infra_errors=record.infra_errors,
    )


def view_of_baseline(baseline: Baseline) -> CountsView:
    tasks = [counts_of_entry(t) for t in baseline.tasks]
    return CountsView(
        label=baseline.label,
        provider=baseline.provider,
        model_id=baseline.model,
        run_id=baseline.run_id,
        k=baseline.k,
        tasks={t.task_id: t for t in tasks},
        forced=baseline.forced,
        reason=baseline.reason,
    )


def view_of_run(run: RunData, model: str) -> CountsView:
    """One model of a run, tasks by id (the order a baseline of it would have)."""
    records = run.for_model(model)
    if not records:
        raise UserError(f"{run.path}: model '{model}' has no results in this run")
    first = records[0]
    ordered = sorted(records, key=lambda r: r.task_id)
    return CountsView(
        label=model,
        provider=first.provider,
        model_id=first.model_id,
        run_id=run.run_id,
        k=run_k(run, records),
        tasks={r.task_id: counts_of_record(r) for r in ordered},
    )


def pooled_figures(tasks: list[TaskCounts]) -> tuple[float | None, float | None]:
    """P95 latency over the pooled trial latencies, and the mean cost per trial.

    A task without raw latencies (an old or converted baseline) contributes its own P95;
    the pooled P95 is then the largest of those.
    """
    latencies = SortedRuns()  # 8 bytes a trial, sorted as they come (one packed copy)
    fallback: list[float] = []
    cost, trials = 0.0, 0
    for t in tasks:
        m = t.metrics
        if m.get("latencies_s"):
            latencies.add([float(x) for x in m["latencies_s"]])
        elif m.get("latency_p95_s") is not None:
            fallback.append(float(m["latency_p95_s"]))
        count = int(m.get("trials") or t.n or 0)
        if m.get("cost_usd") is not None:
            cost += float(m["cost_usd"]) * count
            trials += count
    [pooled] = latencies.percentiles((95,))
    p95 = pooled if pooled is not None else (max(fallback) if fallback else None)
    return p95, (cost / trials if trials else None)
