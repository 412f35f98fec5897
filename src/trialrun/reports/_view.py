"""A run as the HTML report and `trialrun view` show it: plain JSON pages.

`RunView` answers three questions, each a JSON-able dict: the run's overview (headline
per model, plots, the task table), one task × model (its curve and its trials) and one
trial (transcript, tool calls, workspace diff, verdicts, error, timing). The report
writes every page into one file; the server answers them on demand. The run is read
through `trialrun.tracking.load_run` (hence `trialrun.rundir`), transcripts through
`RunDir.transcript`; every figure comes from `trialrun.metrics`.
"""

from __future__ import annotations

import os
import threading
from array import array
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from trialrun.core import compact_json, redacted_json
from trialrun.metrics import coverage, k_curve, mean_curve
from trialrun.reports._across import comparison_svg
from trialrun.reports._before import BeforeFiles
from trialrun.reports._svg import Series, bar_chart, curve_chart, histogram
from trialrun.reports._trial_columns import TrialColumns, trial_status
from trialrun.reports._verdict import rate_change, verdict_page
from trialrun.reports.junit import task_outcome
from trialrun.rundir import WORKSPACES, Manifest, ResultLine, RunDir, RunDirLimits, Transcript
from trialrun.runner import lock_holder
from trialrun.tracking import (
    CompareSettings,
    Comparison,
    RunData,
    TaskRecord,
    compare_with_baselines,
    load_run,
)


def pending_outcome(record: TaskRecord) -> tuple[str, str]:
    """A task's outcome while its run is still going: without enough counted trials yet
    it is "pending" (its trials are queued or running), not "skipped"."""
    status, message = task_outcome(record)
    if status in ("skipped", "error") and record.insufficient:
        done = record.n + record.infra_errors
        return "pending", f"{done} of {record.k} trial(s) finished so far"
    return status, message


def _series(points: list[Any], *, liveness: list[Any] | None = None) -> list[Series]:
    out = [
        Series("solve^k", [p.pass_hat for p in points], [p.pass_hat_lo for p in points],
               [p.pass_hat_hi for p in points]),
        Series("pass@k", [p.pass_at for p in points], [p.pass_at_lo for p in points],
               [p.pass_at_hi for p in points]),
    ]
    if liveness:
        out.append(Series("pass^k (completed)", [p.pass_hat for p in liveness], dashed=True))
    return out


class TrialSink(Protocol):
    """What sees each trial as a run is first read (`RunView(each_trial=...)`)."""

    def __call__(self, view: RunView, number: int, row: int, line: ResultLine) -> None: ...

    def invalidate(self) -> None:
        """A row turned out other than predicted: what was made of the rows is void."""


def _predicted_rows(manifest: Manifest) -> dict[tuple[str, str], int]:
    """Each (task, model)'s row as the summary orders them (run.json's models, each
    over run.json's tasks), known before a line is read; {} when run.json names a model
    twice (no prediction: the report reads the lines again)."""
    models = [m for m in manifest.models or [] if isinstance(m, str)]
    if len(set(models)) != len(models):
        return {}
    tasks = list(manifest.task_meta())
    return {(task, model): m * len(tasks) + t
            for m, model in enumerate(models) for t, task in enumerate(tasks)}


def curve_svg(title: str, records: list[TaskRecord]) -> str:
    """solve^k and pass@k over k = 1…n (95 % band), and pass^k of finishing, dashed."""
    counts = tuple((r.solve_n, r.solved, r.pass_n, r.passed) for r in records)
    return curve_chart(title, _curve_series(counts) if len(counts) == 1
                       else _mean_series(counts))


def _mean_series(counts: tuple[tuple[int, int, int, int], ...]) -> list[Series]:
    solve = mean_curve([(solve_n, solved) for solve_n, solved, _, _ in counts])
    live = mean_curve([(pass_n, passed) for _, _, pass_n, passed in counts])  # infra fails
    return _series(solve, liveness=live[: len(solve)] or live)


@lru_cache(maxsize=1024)
def _curve_series(counts: tuple[tuple[int, int, int, int], ...]) -> list[Series]:
    """One task's series, by its counts (the same for every task with those counts)."""
    return _mean_series(counts)


class RunView:
    """The pages of one run folder (thread-safe; reload with `refresh`)."""

    def __init__(
        self,
        run_dir: Path | str,
        baselines_dir: Path | str | None = None,
        settings: CompareSettings = CompareSettings(),
        limits: RunDirLimits = RunDirLimits(),
        *,
        each_trial: TrialSink | None = None,
    ) -> None:
        """`each_trial`, when given, sees every trial as the run is first read, with its
        page number and its row as predicted from run.json (the HTML report writes the
        trial pages then, in the same pass); it is told `invalidate()` when a row turns
        out other than predicted."""
        self.path = Path(run_dir)
        self.baselines_dir = baselines_dir
        self.settings = settings  # the project's [compare], against the baselines
        self.limits = limits  # the project's [rundir]
        self._lock = threading.Lock()
        self._before: BeforeFiles | None = None
        self.rundir = RunDir.open(self.path, limits=self.limits)
        self._keeps_workspaces = (self.path / WORKSPACES).is_dir()
        self._each_trial = each_trial
        self.refresh()

    # --- loading ---
    def refresh(self) -> None:
        """(Re)read the run folder: a live run gets its new trials. One pass over
        results.jsonl: `load_run` aggregates while each line leaves its facts here."""
        columns = TrialColumns()  # every line, in file order
        by_pair: dict[tuple[str, str], array[int]] = {}
        first_tags: dict[tuple[str, str], tuple[int, Any]] = {}  # tags of the first trial
        sink, self._each_trial = self._each_trial, None  # the first reading only
        manifest = self.rundir.manifest() if sink is not None else None  # read once
        predicted = _predicted_rows(manifest) if manifest is not None else {}

        def each(offset: int, line: ResultLine) -> None:
            nonlocal sink
            pair = (line.task_id, line.model)
            numbers = by_pair.get(pair)
            if numbers is None:
                numbers = by_pair[pair] = array("q")
            if sink is not None:
                row = predicted.get(pair)
                if row is None:
                    sink.invalidate()
                    sink = None
                else:
                    sink(self, len(columns), row, line)
            numbers.append(len(columns))
            columns.add(offset, line)
            if line.trial < first_tags.get(pair, (line.trial + 1, None))[0]:
                first_tags[pair] = (line.trial, line.extra.get("tags"))

        data = load_run(self.path, limits=self.limits, each=each, manifest=manifest)
        records = data.records
        if sink is not None and any(predicted.get((r.task_id, r.model)) != row
                                    for row, r in enumerate(records)
                                    if (r.task_id, r.model) in by_pair):
            sink.invalidate()
        row_lines = [by_pair.get((r.task_id, r.model), array("q")) for r in records]
        line_row = array("q", [-1]) * len(columns)
        for row, numbers in enumerate(row_lines):
            for number in numbers:
                line_row[number] = row
        if -1 in line_row:  # lines of no row (none in a run trialrun wrote): not pages
            if sink is not None:
                sink.invalidate()
            kept = [n for n in range(len(columns)) if line_row[n] >= 0]
            renumber = {old: new for new, old in enumerate(kept)}
            columns = columns.kept(kept)
            line_row = array("q", (line_row[n] for n in kept))
            row_lines = [array("q", (renumber[n] for n in numbers)) for numbers in row_lines]
        trials = columns.trials  # a task page lists its trials by trial number
        row_lines = [array("q", sorted(numbers, key=trials.__getitem__))
                     for numbers in row_lines]
        comparisons: dict[str, Comparison] = {}
        if self.baselines_dir is not None:
            for match in compare_with_baselines(data, self.baselines_dir,
                                                alpha=self.settings.alpha,
                                                method=self.settings.method):
                if match.comparison is not None:
                    comparisons[match.model] = match.comparison
        with self._lock:
            self.data: RunData = data
            self.rundir = RunDir.open(self.path, limits=self.limits)
            self._keeps_workspaces = (self.path / WORKSPACES).is_dir()
            self.records = records
            self.row_of = {(r.task_id, r.model): i for i, r in enumerate(records)}
            # per row the numbers of its lines, by trial; a line's number is its place
            # in the file: stable while a live run appends, and the report's page order
            self.row_lines: list[array[int]] = row_lines
            self.row_tags: list[Any] = [first_tags.get((r.task_id, r.model), (0, None))[1]
                                        for r in records]
            self.lines = columns
            self.line_row = line_row
            self.task_meta = data.manifest.task_meta()
            self.comparisons = comparisons
            self._overview: dict[str, Any] | None = None

    @property
    def run_id(self) -> str:
        return self.data.run_id

    def close(self) -> None:
        if self._before is not None:
            self._before.close()

    # --- the overview ---
    def overview(self) -> dict[str, Any]:
        with self._lock:
            if self._overview is None:
                self._overview = self._build_overview()
            return self._overview

    def _labels(self) -> dict[tuple[str, str], str]:
        return {
            (model, t.task_id): t.verdict for model, c in self.comparisons.items() for t in c.tasks
        }

    def _build_overview(self) -> dict[str, Any]:
        data, summary = self.data, self.data.summary
        labels = self._labels()
        live = self.in_progress()
        rows: list[dict[str, Any]] = []  # the page's JSON
        for i, r in enumerate(self.records):
            status, message = pending_outcome(r) if live else task_outcome(r)
            failed: dict[str, int] = {}
            numbers = self.row_lines[i]
            for n in numbers:
                for name in self.lines.failed[n]:
                    failed[name] = failed.get(name, 0) + 1
            rows.append({
                "i": i, "task_id": r.task_id, "model": r.model, "suite": r.suite,
                "tier": r.tier, "tags": self._tags(r, self.row_tags[i]), "policy": r.policy,
                "metric": r.metric,
                "k": r.k, "n": r.n, "trials": r.trials.finished, "passed": r.passed,
                "solved": r.solved, "undetermined": r.undetermined, "infra": r.infra_errors,
                "pass_k": r.pass_k, "solve_k": r.solve_k, "pass_at_k": r.pass_at_k,
                "flaky": r.flaky, "status": status, "message": message,
                "change": labels.get((r.model, r.task_id)),
                "failed_graders": failed,
                "first_failed": min((n for n in numbers if not self.lines.solved(n)),
                                    default=None),  # the first in the file
            })
        headline = []
        for model in data.models:
            agg = summary.aggregate.get(model) or {}
            mrows = summary.rows_for(model)
            cover = {key: list(coverage(mrows, key)) for key in ("pass_k", "solve_k", "pass_at_k")}
            headline.append({
                "model": model, "cover": cover, **{
                    key: agg.get(key) for key in (
                        "tasks", "trials", "pass_k_rate", "solve_k_rate", "pass_at_k_rate",
                        "mean_pass_rate", "mean_solve_rate", "flaky_task_count",
                        "insufficient", "undetermined", "infra_errors", "safety_violations",
                        "latency_p50_s", "latency_p95_s", "cost_usd", "mean_turns", "tokens",
                    )
                },
                "comparison": self._comparison_head(model),
            })
        facet = {
            "models": data.models,
            "suites": sorted({r.suite for r in self.records}),
            "tiers": sorted({r.tier for r in self.records if r.tier}),
            "tags": sorted({t for row in rows for t in row["tags"]}),
        }
        return {
            "run_id": data.run_id,
            "path": str(self.path),
            "started_at": data.manifest.started_at,
            "git_sha": data.manifest.git_sha,
            "trialrun_version": data.manifest.trialrun_version,
            "models": data.models,
            "k": data.manifest.k,
            "finished": summary.finished_trials,
            "expected": summary.expected_trials,
            "in_progress": live,
            "keep_artifacts": data.manifest.keep_artifacts,
            "warnings": [*data.warnings, *summary.warnings],
            "headline": headline,
            "plots": self._plots(),
            "facets": facet,
            "tasks": rows,
        }

    def in_progress(self) -> bool:
        """The run's lock is held by a live process (a run still writing trials)."""
        return lock_holder(self.path) is not None

    def _tags(self, record: TaskRecord, first_line_tags: Any) -> list[str]:
        meta = self.task_meta.get(record.task_id, {})
        tags = meta.get("tags", first_line_tags)
        return [str(t) for t in tags] if isinstance(tags, list) else []

    def _comparison_head(self, model: str) -> dict[str, Any] | None:
        c = self.comparisons.get(model)
        if c is None:
            return None
        return {
            "against": str(c.against),
            "regressions": [t.task_id for t in c.regressions],
            "within_noise": [t.task_id for t in c.within_noise],
            "solve_k": rate_change(c, "solve_k_rate", "solve^k"),
            "solve_k_delta_pp": c.pp("solve_k_rate"),
            "pass_k_delta_pp": c.pp("pass_k_rate"),
            **verdict_page(c),
        }

    def _plots(self) -> list[dict[str, str]]:
        data, summary = self.data, self.data.summary
        plots = []
        for model in data.models:
            recs = data.for_model(model)
            name = model if len(data.models) > 1 else "all tasks"
            plots.append({"id": f"curve-{model}", "title": f"k curves · {name}",
                          "svg": curve_svg(f"solve^k and pass@k over k · {name}", recs)})
            tiers = (summary.aggregate.get(model) or {}).get("by_tier") or {}
            bars = [(tier, v["solved_k"] / v["tasks"] if v.get("tasks") else None,
                     f"({v.get('solved_k', 0)}/{v.get('tasks', 0)} tasks)")
                    for tier, v in tiers.items()]
            if bars:
                plots.append({"id": f"tier-{model}", "title": "by tier",
                              "svg": bar_chart(f"tasks meeting solve^k, by tier · {name}",
                                               bars)})
            suites = (summary.by_suite.get(model) or {}) if isinstance(summary.by_suite,
                                                                      dict) else {}
            sbars = [(suite, v.get("mean_solve_rate"), f"({v.get('tasks', 0)} tasks)")
                     for suite, v in sorted(suites.items())]
            if sbars:
                plots.append({"id": f"suite-{model}", "title": "by suite",
                              "svg": bar_chart(f"solve rate (trials), by suite · {name}",
                                               sbars)})
            counted = [n for r in recs for n in self.row_lines[self.row_of[(r.task_id, r.model)]]
                       if self.lines.counted(n)]
            latencies = self.lines.latency.numbers(counted)
            plots.append({"id": f"latency-{model}", "title": "latency",
                          "svg": histogram(f"trial latency · {name}", latencies, " s")})
            costs = self.lines.cost.numbers(counted)
            if costs:
                plots.append({"id": f"cost-{model}", "title": "cost",
                              "svg": histogram(f"cost per trial · {name}", costs, "$")})
            comparison = self.comparisons.get(model)
            if comparison is not None:
                plots.append({"id": f"baseline-{model}", "title": "against the baseline",
                              "svg": comparison_svg(comparison)})
        return plots

    # --- one task × model ---
    def task(self, row: int) -> dict[str, Any]:
        with self._lock:
            if not 0 <= row < len(self.records):
                raise KeyError(row)
            r = self.records[row]
            trials = [self.lines.entry(n) for n in self.row_lines[row]]
        curve = [p.as_dict() for p in k_curve(r.solve_n, r.solved)] if r.solve_n else []
        return {
            "row": row, "task_id": r.task_id, "model": r.model, "suite": r.suite,
            "tier": r.tier, "k": r.k, "n": r.n, "solved": r.solved, "passed": r.passed,
            "solve_n": r.solve_n, "pass_n": r.pass_n, "pass_k": r.pass_k,
            "solve_k": r.solve_k, "pass_at_k": r.pass_at_k, "flaky": r.flaky,
            "outcome": task_outcome(r),
            "curve": curve,
            "svg": curve_svg(f"{r.task_id}: solve^k and pass@k over k", [r]),
            "trials": trials,
        }

    # --- one trial ---
    def trial(self, index: int, *, with_transcript: bool = True) -> dict[str, Any]:
        """One trial's page. Without its transcript (a large report embeds only some):
        no messages, turns or workspace diff, and `transcript_note` says where they are;
        every figure still comes from the results line."""
        with self._lock:
            if not 0 <= index < len(self.lines):
                raise KeyError(index)
            offset = self.lines.offsets[index]
            row = self.line_row[index]
            rundir = self.rundir
        return self.trial_page(index, row, rundir.result_at(offset), with_transcript)

    def trial_pages(self, embed: bytearray) -> Iterator[tuple[int, dict[str, Any]]]:
        """(number, page) of every trial, in number order, read in one pass over
        results.jsonl (no line is looked up again); `embed[number]`: with its transcript."""
        with self._lock:
            offsets, line_row, rundir = self.lines.offsets, self.line_row, self.rundir
        number = 0
        for offset, line in rundir.iter_results_with_offsets(manifest=self.data.manifest):
            if number == len(offsets):
                break
            if offset == offsets[number]:  # a line of no row is not a page
                yield number, self.trial_page(number, line_row[number], line,
                                              bool(embed[number]))
                number += 1

    def trial_page(
        self, index: int, row: int, line: ResultLine, with_transcript: bool
    ) -> dict[str, Any]:
        """The page of trial `index` (row `row`) from its results line."""
        transcript = self.rundir.transcript_or_empty(line) if with_transcript else Transcript()
        note = None if with_transcript else transcript_note(self.path, line.transcript)
        changes = transcript.extra.get("workspace_diff")
        diff: dict[str, Any] | None = None
        if isinstance(changes, dict):
            diff = {key: [str(p) for p in changes.get(key) or []]
                    for key in ("created", "modified", "deleted")}
            # no workspaces/ folder: no path made or looked up for 100,000 trials
            kept = self.rundir.workspace_dir(line) if self._keeps_workspaces else None
            diff["kept"] = (kept is not None
                            and kept.is_dir() and not kept.is_symlink())  # a link: not followed
            if kept is not None and diff["kept"] and diff["modified"]:
                with self._lock:
                    if self._before is None:
                        self._before = BeforeFiles(self.rundir.manifest())
                    diff["text"] = self._before.diffs(line.task_id, kept, diff["modified"])
                    diff["note"] = self._before.note
        return {
            "line": index, "row": row, "task_id": line.task_id, "model": line.model,
            "trial": line.trial, "status": trial_status(line), "pass": line.passed,
            "solve": line.solve, "error": line.error, "verdicts": line.verdicts,
            "tool_calls": line.tool_calls, "turns": line.turns, "tokens": line.tokens,
            "cost_usd": line.cost_usd, "latency_s": line.latency_s,
            "safety_violation": line.safety_violation,
            "user_message": line.extra.get("user_message") or transcript.user_message,
            "final_text": line.final_text or transcript.final_text,
            "messages": transcript.messages, "turn_meta": transcript.turns,
            "workspace_diff": diff, "transcript": line.transcript,
            "transcript_note": note,
        }


def transcript_note(run_dir: Path, rel: str | None) -> str:
    """What a trial page without its transcript says instead of a blank."""
    if not rel:
        return "no transcript was recorded for this trial"
    return (f"transcript not embedded in this report (only failed trials and a sample per "
            f"task are); it is in {os.path.join(run_dir, rel)}, or open the run with "
            "trialrun view")


def dumps(page: Any, secrets: Sequence[str] | None = None) -> str:
    """A page as compact, redacted JSON (NaN never appears: trialrun never writes one).
    Every page of the viewer and the HTML report goes through here, so a secret in a run
    folder written before redaction is masked on the way out too. `secrets`: the
    environment's secret values, when the caller looked them up once for many pages."""
    return redacted_json(_compact, page, secrets)


def _compact(page: Any) -> str:
    return compact_json(page).decode("utf-8")
