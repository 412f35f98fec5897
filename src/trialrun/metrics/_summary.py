"""summary.json from results.jsonl lines (+ run.json's task metadata), nothing else.

Counting rules (README, "Metrics, exactly"):
- pass ("the run completed without harness errors", as Scribe defines it) counts every
  finished trial: an infra-error trial (`error.kind == "infra"`, after its re-runs) is a
  failed pass. `pass_n` = every finished trial, the pass^k and pass_rate denominator;
- solve leaves infra errors out: `n` = finished trials minus infra errors, and the solve^k
  and pass@k denominator is `n - undetermined` (undetermined: solve is None, not infra);
- fewer than k counted trials: that figure is null, the task is left out of that
  aggregate and counted in `insufficient`. With every trial finished only solve^k and
  pass@k can lack trials (infra errors, undetermined verdicts).
A row carries `pass_n`; a stored summary.json whose rows lack it and have infra errors
was counted under the older rule (infra errors out of pass too) and is recomputed.
A task "meets" pass^k (solve^k) for `by_tier` when its figure is 1.0, i.e. every counted
trial succeeded and at least k were counted.
A task stopped early (`--early-stop`: a line says `settled_after`) with fewer than k
counted trials has `settled_after` and its verdict in its row (`settled`: "met" or "not
met" under its metric) and no estimate (none was measured); aggregates count such tasks
in `settled` (present when there are any), not in `insufficient`.
`failed_graders` counts trials, not verdicts: a trial where any verdict of a grader type
failed counts once for it. A row carries `tracked` (each of the task's `tracked_metrics`
with its value) only when run.json lists them, so older runs summarize as they did.

Lines are folded into per-(task, model) `Tally` counters as they are read (`Summarizer`),
so a summary of any number of trials holds its tasks, not its lines.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from itertools import chain
from typing import Any, cast

from trialrun.core import Interner, is_unpinned, parse_model_spec
from trialrun.metrics._estimators import pass_at_k, pass_hat_k
from trialrun.metrics._exact_sum import Exact, combined, rounded
from trialrun.metrics._percentile import percentile, percentiles_over
from trialrun.metrics._tally import NO_COUNTS, Tally, TallyTotals, tally_of
from trialrun.metrics._task_meta import UNLISTED, TaskMeta, metas_by_id, pos_int
from trialrun.metrics._tracked import canonical_metric
from trialrun.rundir import (
    Manifest,
    ResultLine,
    RunDir,
    Summary,
    SummaryRow,
    Trajectory,
    shared_tags,
)

Line = ResultLine


def is_infra(line: Line) -> bool:
    return line.is_infra


def _mean_over(rows: list[SummaryRow], figure: str) -> float | None:
    """The mean of the rows' `figure` where they have one (summed in row order, as
    `sum` of a list of them), None where none has; no list of them is made."""
    count = sum(1 for r in rows if getattr(r, figure) is not None)
    total = sum(value for r in rows if (value := getattr(r, figure)) is not None)
    return total / count if count else None


def _exact_mean(total: Exact, count: int) -> float | None:
    """The mean of `count` values from their exact sum (rounded once); None for none."""
    return rounded(total) / count if count else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _tags(value: Any) -> tuple[str, ...]:
    return shared_tags(value) if isinstance(value, (list, tuple)) else ()


def task_row(
    task_id: str, model: str, meta: dict[str, Any], lines: list[Line], k_default: int
) -> SummaryRow:
    """One (task, model) row of summary.json."""
    return row_of(task_id, model, TaskMeta.of(meta), tally_of(lines), k_default)


def row_of(
    task_id: str, model: str, meta: TaskMeta, tally: Tally, k_default: int,
    *, share_counts: bool = False,
) -> SummaryRow:
    """One (task, model) row of summary.json from its tally: run.json's task metadata
    first, the first line's fields for older runs without it. `share_counts`: the row
    takes the tally's failed graders and error kinds, not a copy (no line follows)."""
    first = tally.first or {}
    k = meta.k or pos_int(first.get("k")) or k_default
    n, passed, solved, undetermined = tally.n, tally.passed, tally.solved, tally.undetermined
    pass_n = tally.lines  # every finished trial: an infra error is a failed pass
    solve_n = n - undetermined
    metric = meta.metric or _str(first.get("metric")) or "pass^k"
    row = SummaryRow(
        task_id=task_id,
        model=model,
        provider=_str(first.get("provider")) or model.partition(":")[0],
        suite=meta.suite or _str(first.get("suite")),
        tier=meta.tier if meta.listed else _str(first.get("tier")),
        k=k,
        n=n,
        pass_n=pass_n,
        passed=passed,
        solved=solved,
        undetermined=undetermined,
        infra_errors=tally.lines - n,
        pass_k=_estimate(pass_hat_k, pass_n, passed, k),
        solve_k=_estimate(pass_hat_k, solve_n, solved, k),
        pass_at_k=_estimate(pass_at_k, solve_n, solved, k),
        flaky=0 < solved < solve_n,
        metric=metric,
        policy=meta.policy or _str(first.get("policy")),
        tags=meta.tags if meta.tags is not None else _tags(first.get("tags")),
        mean_turns=_exact_mean(tally.turn_sum, tally.turn_count),
        failed_graders=_row_counts(tally.failed, share_counts),
        errors=_row_counts(tally.error_kinds, share_counts),
        safety_violations=tally.safety,
        trajectory=trajectory_row(tally),
    )
    if tally.settled_after is not None and (pass_n < k or solve_n < k):
        row.settled_after = tally.settled_after
        row.settled = "met" if metric == "pass@k" and solved else "not met"
    if meta.tracked is not None:
        row.tracked = _tracked(meta.tracked, row, tally)
    return row


# a task run k times has a pass^k of 0 or 1: every row of such a run shares these two
_ENDS = {0.0: 0.0, 1.0: 1.0}


def _estimate(estimator: Callable[[int, int, int], float], n: int, c: int, k: int
              ) -> float | None:
    """`estimator(n, c, k)` (None below k trials), 0.0 and 1.0 one object for every row."""
    if n < k:
        return None
    value = estimator(n, c, k)
    return _ENDS.get(value, value)


def _row_counts(counts: Mapping[str, int], share: bool) -> Mapping[str, int]:
    """A row's copy of a tally's counts (with `share`: the tally's own); none: the one
    read-only empty mapping every such row shares."""
    if not counts:
        return NO_COUNTS
    return counts if share else dict(counts)


def trajectory_row(source: Tally | Iterable[Line]) -> Trajectory | None:
    """Per-task trajectory figures over the counted trials that carry them: mean
    `repeated_calls` and `tool_errors` per trial, `recovered_rate` (trials that recovered
    from every failed call over trials with one; None without any), median
    `time_to_first_tool_s`. None for lines written before these figures existed, so
    older runs summarize as they did."""
    tally = source if isinstance(source, Tally) else tally_of(list(source))
    figures = tally.trajectory
    if not figures.trials:
        return None
    return Trajectory(
        repeated_calls=figures.repeated_calls / figures.trials,
        tool_errors=figures.tool_errors / figures.trials,
        recovered_rate=(
            figures.recovered / figures.with_tool_errors if figures.with_tool_errors else None
        ),
        trials_with_tool_errors=figures.with_tool_errors,
        time_to_first_tool_s=percentile(list(figures.first_tool_s), 50),
    )


def tracked_values(
    names: list[Any], row: SummaryRow, counted: list[Line]
) -> dict[str, float | None]:
    """Each tracked metric (canonical name) → its value for this row; None without data.

    Estimators are the row's own; pass_rate is over every finished trial (an infra error
    is a failed pass), solve_rate over those with a verdict; per-trial means are over the
    counted trials (infra errors left out).
    """
    return _tracked(names, row, tally_of([t for t in counted if not t.is_infra]))


def _tracked(names: Sequence[Any], row: SummaryRow, tally: Tally) -> dict[str, float | None]:
    turns = _exact_mean(tally.turn_sum, tally.turn_count)
    solve_n = row.n - row.undetermined
    pass_n = row.pass_total
    trajectory = row.trajectory
    values: dict[str, float | None] = {
        "pass^k": row.pass_k,
        "solve^k": row.solve_k,
        "pass@k": row.pass_at_k,
        "pass_rate": row.passed / pass_n if pass_n else None,
        "solve_rate": row.solved / solve_n if solve_n else None,
        "latency_p50": percentile(list(tally.latencies), 50),
        "latency_p95": percentile(list(tally.latencies), 95),
        "cost": _exact_mean(tally.cost_sum, tally.cost_count),
        "tokens": _exact_mean(tally.token_sum, tally.token_count),
        "turns": turns,
        "steps": turns,
        "tool_calls": tally.tool_calls / tally.n if tally.n else None,
        "repeated_calls": trajectory.repeated_calls if trajectory else None,
        "tool_errors": trajectory.tool_errors if trajectory else None,
        "recovered_rate": trajectory.recovered_rate if trajectory else None,
        "time_to_first_tool": trajectory.time_to_first_tool_s if trajectory else None,
    }
    out: dict[str, float | None] = {}
    for name in names:
        canonical = canonical_metric(str(name)) or str(name)
        out[canonical] = values.get(canonical)
    return out


def counted_under_current_rule(summary: Summary) -> bool:
    """Whether a stored summary counts pass as this version does: its rows have `pass_n`,
    or no infra error whose counting changed (older rules left them out of pass too)."""
    return all(r.pass_n is not None or not r.infra_errors for r in summary.tasks)


FIGURES = ("pass_k", "solve_k", "pass_at_k")


def coverage(rows: list[SummaryRow], figure: str) -> tuple[int, int]:
    """(tasks with a `figure` (pass_k, solve_k or pass_at_k), tasks) over summary rows:
    what a headline rate is over."""
    if figure not in FIGURES:
        raise ValueError(f"figure must be one of {FIGURES}, got {figure!r}")
    return sum(1 for r in rows if getattr(r, figure) is not None), len(rows)


def _meets(value: float | None) -> bool:
    return value is not None and value >= 1.0 - 1e-12


def aggregate(
    rows: list[SummaryRow], lines: list[Line], *, tiers: bool = True
) -> dict[str, Any]:
    """Averages of per-task figures; rates over all counted trials; latency, tokens, cost."""
    return _aggregate(rows, [tally_of(lines)], tiers=tiers)


def _aggregate(
    rows: list[SummaryRow], tallies: Sequence[TallyTotals], *, tiers: bool = True
) -> dict[str, Any]:
    pass_total = sum(r.pass_total for r in rows)
    solve_total = sum(r.n - r.undetermined for r in rows)
    # over every task's latencies, one packed sorted copy (8 bytes a trial), not pooled
    p50, p95 = percentiles_over([t.latencies for t in tallies], (50, 95))
    # exact per-task sums, added up and rounded once: the same double as a sum over the
    # lines in any order (math.fsum of them)
    turn_count = sum(t.turn_count for t in tallies)
    cost_count = sum(t.cost_count + t.infra_cost_count for t in tallies)
    tokens = {"prompt": 0, "cached": 0, "completion": 0}
    for t in tallies:
        for key, count in t.token_sums().items():
            tokens[key] += count
    out: dict[str, Any] = {
        "tasks": len(rows),
        "trials": sum(t.lines for t in tallies),
        "pass_k_rate": _mean_over(rows, "pass_k"),
        "solve_k_rate": _mean_over(rows, "solve_k"),
        "pass_at_k_rate": _mean_over(rows, "pass_at_k"),
        "mean_pass_rate": sum(r.passed for r in rows) / pass_total if pass_total else None,
        "mean_solve_rate": sum(r.solved for r in rows) / solve_total if solve_total else None,
        "flaky_task_count": sum(1 for r in rows if r.flaky),
        "insufficient": sum(1 for r in rows if r.insufficient),
        "undetermined": sum(r.undetermined for r in rows),
        "infra_errors": sum(r.infra_errors for r in rows),
        "safety_violations": sum(r.safety_violations for r in rows),
        "mean_turns": (
            combined([t.turn_sum for t in tallies]) / turn_count if turn_count else None
        ),
        "latency_p50_s": p50,
        "latency_p95_s": p95,
        "tokens": tokens,
        "cost_usd": (
            combined([s for t in tallies for s in t.cost_sums()]) if cost_count else None
        ),
    }
    settled = sum(1 for r in rows if r.settled_after is not None)
    if settled:  # only runs that stopped early carry the key: older summaries read the same
        out["settled"] = settled
    if tiers:
        by_tier: dict[str, dict[str, int]] = {}
        for r in sorted(rows, key=lambda r: str(r.tier)):
            if not r.tier:
                continue
            entry = by_tier.setdefault(r.tier, {"tasks": 0, "passed_k": 0, "solved_k": 0})
            entry["tasks"] += 1
            entry["passed_k"] += _meets(r.pass_k)
            entry["solved_k"] += _meets(r.solve_k)
        out["by_tier"] = by_tier
    return out


# the trials seen of finished tasks as the one int every task with the same trials
# holds (k = 10: trials 0 to 9 are 1023, an int of its own, 32 bytes, in every task otherwise)
_shared_bits: Interner[int] = Interner(limit=1024)


def _aggregates(
    models: list[str], rows: list[SummaryRow], totals: Mapping[tuple[str, str], TallyTotals]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Each model's aggregate, and its aggregates by suite and by tag."""
    empty = TallyTotals()
    aggregate_by_model: dict[str, Any] = {}
    by_suite: dict[str, Any] = {}
    by_tag: dict[str, Any] = {}
    for model in models:
        mrows = [r for r in rows if r.model == model]
        mtallies = [totals.get(r.key, empty) for r in mrows]
        aggregate_by_model[model] = _aggregate(mrows, mtallies)
        groups: dict[str, dict[str, tuple[list[SummaryRow], list[TallyTotals]]]] = {
            "suite": {}, "tag": {}
        }
        for r, tally in zip(mrows, mtallies, strict=True):
            names = {"suite": [r.suite] if r.suite else [], "tag": r.tags}
            for kind, values in names.items():
                for value in values:
                    bucket = groups[kind].setdefault(value, ([], []))
                    bucket[0].append(r)
                    bucket[1].append(tally)
        by_suite[model] = {
            s: _aggregate(*g, tiers=False) for s, g in groups["suite"].items()
        }
        by_tag[model] = {
            t: _aggregate(*g, tiers=False) for t, g in sorted(groups["tag"].items())
        }
    return aggregate_by_model, by_suite, by_tag


@dataclass(slots=True)
class Summarizer:
    """summary.json built line by line: `add` each results line, then `summary()`.

    Memory grows with the (task, model) pairs, not the lines: each line is folded into
    its pair's `Tally` and dropped. A repeated (task, model, trial) is counted once.
    run.json's task entries (`tasks_meta`) are read into one `TaskMeta` each when it is
    made: the entries themselves are not held.
    """

    tasks_meta: InitVar[list[dict[str, Any]] | None] = None
    run_id: str | None = None
    models: list[str] | None = None
    k: int | None = None
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    duplicates: int = 0
    # what each (task, model) is folded into: a reader that keeps more of a line than the
    # summary (tracking's `TrialTally`) passes its subclass, so a line is read once
    tally_type: type[Tally] = field(default=Tally, kw_only=True)
    metas: dict[str, TaskMeta] = field(init=False, repr=False)  # run.json's tasks by id
    done: bool = field(default=False, init=False, repr=False)  # a `last` summary was made
    # after a `last` summary: each (task, model)'s `Tally.totals()` (`tallies` is emptied)
    kept: dict[tuple[str, str], TallyTotals] = field(
        default_factory=dict, init=False, repr=False)

    def __post_init__(self, tasks_meta: list[dict[str, Any]] | None) -> None:
        self.metas = metas_by_id(tasks_meta)

    def add(self, line: Line) -> None:
        """Fold a line in; a trial seen before is counted in `duplicates` instead."""
        if self.done:
            raise ValueError("the last summary was made: its tallies are closed")
        pair = (line.task_id, line.model)
        tally = self.tallies.get(pair)
        if tally is None:  # the key's text shared with run.json's (interned there)
            pair = (sys.intern(line.task_id), sys.intern(line.model))
            tally = self.tallies[pair] = self.tally_type()
            meta = self.metas.get(line.task_id)
            tally.expected = (meta.k if meta else None) or pos_int(self.k) or 0
        bit = 1 << line.trial
        if tally.trial_bits & bit:
            self.duplicates += 1
            return
        tally.trial_bits |= bit
        tally.add(line)
        if tally.lines == tally.expected:
            tally.trim()  # every trial in: its arrays need grow no more
            tally.trial_bits = _shared_bits(tally.trial_bits)

    def keys(self) -> set[tuple[str, str]]:
        """The (task, model) pairs that have at least one line."""
        return set(self.tallies)

    def summary(self, warnings: list[str] | None = None, *, last: bool = False) -> Summary:
        """The summary of the lines added so far. `last`: no line follows; the rows take
        their tallies' counts instead of copies, and each tally is let go as its row is
        made, `kept` holding what the aggregates (and a subclass's reader) still read of
        it (`Tally.totals()`)."""
        if self.done:
            raise ValueError("the last summary was made: its tallies are closed")
        warnings = list(warnings or [])
        meta_by_id = self.metas
        by_key = self.tallies
        if self.duplicates:
            warnings.append(
                f"{self.duplicates} duplicate results line(s) ignored (same task, model, trial)"
            )
        model_list = [m for m in self.models or [] if isinstance(m, str)]
        for _, model in by_key:
            if model not in model_list:
                model_list.append(model)
        # every (task of run.json, model), then the pairs only the lines have
        listed = ((tid, m) for m in model_list for tid in meta_by_id)
        unlisted = [key for key in by_key if key[0] not in meta_by_id]
        k_default = pos_int(self.k) or 1
        empty = Tally()
        # a last summary turns each tally into its totals in place (one table, no second)
        totals = cast(dict[tuple[str, str], TallyTotals], by_key)
        rows = []
        for key in chain(listed, unlisted):
            folded = by_key.get(key)
            rows.append(row_of(key[0], key[1], meta_by_id.get(key[0], UNLISTED),
                               folded or empty, k_default, share_counts=last))
            if last and folded is not None:  # its row made: only its totals are read on
                folded.close()
                totals[key] = folded.totals()
        if last:
            self.kept, self.tallies = totals, {}

        aggregate_by_model, by_suite, by_tag = _aggregates(model_list, rows, totals)
        unpinned = [
            m for m in model_list if m.strip() and is_unpinned(parse_model_spec(m).model_id or m)
        ]
        for m in unpinned:
            warnings.append(f"model '{m}' is unpinned (-latest/-preview): results may drift")
        expected = sum(m.k or k_default for m in meta_by_id.values()) * len(model_list)
        finished = sum(t.lines for t in totals.values())
        self.done = last
        return Summary(
            run_id=self.run_id,
            models=model_list,
            k=pos_int(self.k),
            tasks=rows,
            aggregate=aggregate_by_model,
            by_suite=by_suite,
            by_tag=by_tag,
            unpinned_models=unpinned,
            expected_trials=expected if meta_by_id else finished,
            finished_trials=finished,
            warnings=warnings,
        )


def summarize(
    results_lines: Iterable[Line],
    tasks_meta: list[dict[str, Any]] | None = None,
    *,
    run_id: str | None = None,
    models: list[str] | None = None,
    k: int | None = None,
    warnings: list[str] | None = None,
) -> Summary:
    """summary.json, recomputed from results lines and run.json's `tasks`.

    `tasks_meta` gives each task's suite, tier, tags, policy, metric and effective k; rows
    are made for every (task, model) it lists, even with no finished trial yet. The lines
    may be a stream (`RunDir.iter_results`): none is held.
    """
    summarizer = Summarizer(tasks_meta, run_id, models, k)
    for line in results_lines:
        summarizer.add(line)
    return summarizer.summary(warnings)


def summarizer_for(manifest: Manifest, tally_type: type[Tally] = Tally) -> Summarizer:
    """An empty `Summarizer` for a run folder's manifest, folding lines into `tally_type`."""
    return Summarizer(manifest.tasks, manifest.run_id, manifest.models, manifest.k,
                      tally_type=tally_type)


def summarize_run(
    results: Iterable[Line], manifest: Manifest, *, warnings: list[str] | None = None
) -> Summary:
    """The summary of a run folder's results under its manifest."""
    summarizer = summarizer_for(manifest)
    for line in results:
        summarizer.add(line)
    return summarizer.summary(warnings)


def summarize_rundir(run: RunDir, *, warnings: list[str] | None = None) -> Summary:
    """A run folder's summary, its results.jsonl streamed (constant memory).

    What the reader skipped (a torn last line) comes first in the summary's warnings.
    """
    manifest = run.manifest()
    skipped: list[str] = []
    summarizer = summarizer_for(manifest)
    for line in run.iter_results(skipped, manifest=manifest):
        summarizer.add(line)
    return summarizer.summary([*skipped, *(warnings or [])])


def current_summary(run: RunDir, results: Iterable[Line], manifest: Manifest) -> Summary:
    """summary.json when it covers every result, else recomputed (an interrupted run)."""
    results = list(results)
    stored = run.stored_summary()
    if stored is not None and counted_under_current_rule(stored):
        covered = {r.key for r in stored.tasks}
        if all(line.key[:2] in covered for line in results):
            return stored
    return summarize_run(results, manifest)


def stored_if_covering(run: RunDir, keys: set[tuple[str, str]]) -> Summary | None:
    """summary.json when it has a row for every (task, model) given, else None."""
    return covering(stored_current(run), keys)


def stored_current(run: RunDir) -> Summary | None:
    """summary.json when it counts as this version does (None: absent, or counted under
    an older rule); a damaged one is a UserError."""
    stored = run.stored_summary()
    return stored if stored is not None and counted_under_current_rule(stored) else None


def covering(stored: Summary | None, keys: set[tuple[str, str]]) -> Summary | None:
    """`stored` when it has a row for every (task, model) given, else None."""
    if stored is None:
        return None
    covered = {r.key for r in stored.tasks}
    return stored if keys <= covered else None
