"""A run folder as tracking sees it: per-(task, model) records with their trial tallies.

Each record is the summary's own row (summary.json when it covers every result, else
recomputed by `trialrun.metrics`) with what tracking adds: the model id, the task's gates
and a `TrialTally` of its lines (per-trial means, latencies, the trials that broke a
rule). Only the run folder is read, through `trialrun.rundir`; nothing here knows how the
run was produced.

results.jsonl is streamed once: each line is folded into the summary's counters and its
task's `TrialTally` and dropped, so memory grows with the tasks, not the trials.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from trialrun.core import parse_model_spec
from trialrun.errors import UserError
from trialrun.metrics import TallyTotals, covering, stored_current, summarizer_for
from trialrun.rundir import Manifest, ResultLine, RunDir, RunDirLimits, Summary, SummaryRow
from trialrun.tasks import SUITE_DEFAULTS
from trialrun.tracking._trial_tally import TrialFigures, TrialTally

GATE_KEYS = {"merge": "ci_merge_gate", "nightly": "nightly", "release": "release_candidate"}


@dataclass(slots=True)
class TaskRecord:
    """One task × one model of a run: its summary row, gates and trial tally."""

    row: SummaryRow
    model_id: str
    gates: dict[str, bool] = field(default_factory=dict)
    trials: TrialFigures = field(default_factory=TrialFigures)

    @property
    def task_id(self) -> str:
        return self.row.task_id

    @property
    def model(self) -> str:
        """The full spec text, e.g. "gemini:gemini-2.5-flash"."""
        return self.row.model

    @property
    def provider(self) -> str:
        return self.row.provider or parse_model_spec(self.row.model).provider

    @property
    def suite(self) -> str:
        return self.row.suite or "golden"

    @property
    def tier(self) -> str | None:
        return self.row.tier

    @property
    def policy(self) -> str:
        defaults = SUITE_DEFAULTS.get(self.suite) or SUITE_DEFAULTS["golden"]
        return self.row.policy or defaults.policy

    @property
    def metric(self) -> str:
        return self.row.metric

    @property
    def k(self) -> int:
        return self.row.k

    @property
    def n(self) -> int:
        """Trials with a result: infra errors left out (`pass_n` counts them)."""
        return self.row.n

    @property
    def passed(self) -> int:
        return self.row.passed

    @property
    def solved(self) -> int:
        return self.row.solved

    @property
    def undetermined(self) -> int:
        return self.row.undetermined

    @property
    def infra_errors(self) -> int:
        return self.row.infra_errors

    @property
    def pass_k(self) -> float | None:
        return self.row.pass_k

    @property
    def solve_k(self) -> float | None:
        return self.row.solve_k

    @property
    def pass_at_k(self) -> float | None:
        return self.row.pass_at_k

    @property
    def flaky(self) -> bool:
        return self.row.flaky

    @property
    def settled_after(self) -> int | None:
        """--early-stop: the verdict was settled after this many trials."""
        return self.row.settled_after

    @property
    def solve_n(self) -> int:
        """Trials counted for solve figures: infra errors and undetermined left out."""
        return self.row.solve_n

    @property
    def pass_n(self) -> int:
        """Trials counted for pass figures: every finished one (an infra error is a failed
        pass)."""
        return self.row.n + self.row.infra_errors

    @property
    def insufficient(self) -> bool:
        """No figure and no settled verdict (a task stopped early has a verdict, no figure).

        pass^k counts every finished trial, so once k trials finished only solve^k can
        lack data: infra errors and undetermined verdicts make a task insufficient
        through the solve denominator."""
        return self.row.insufficient

    @property
    def meets_solve_k(self) -> bool:
        return self.solve_k is not None and self.solve_k >= 1.0 - 1e-12

    def in_gate(self, gate: str) -> bool:
        return bool(self.gates.get(GATE_KEYS.get(gate, gate), False))

    def metrics(self) -> dict[str, Any]:
        """Per-trial means (turns, tool calls, tokens, cost) and latency percentiles."""
        return self.trials.metrics()


@dataclass(slots=True)
class RunData:
    path: Path
    manifest: Manifest
    summary: Summary
    records: list[TaskRecord]
    models: list[str]
    warnings: list[str] = field(default_factory=list)  # what the reader skipped (a torn line)
    finished: int = 0  # results lines read (each a distinct task, model, trial)

    @property
    def results(self) -> list[ResultLine]:
        """The run's checked results lines, read from the folder now (not held)."""
        return RunDir.open(self.path).results()

    @property
    def run_id(self) -> str:
        return str(self.manifest.run_id or self.summary.run_id or self.path.name)

    @property
    def git_sha(self) -> str | None:
        return self.manifest.git_sha

    def for_model(self, model: str) -> list[TaskRecord]:
        return [r for r in self.records if r.model == model]


def run_k(run: RunData, records: list[TaskRecord]) -> int:
    """The run's k: the override from run.json, else the smallest task k."""
    override = run.manifest.k
    if isinstance(override, int) and override > 0:
        return override
    return min((r.k for r in records), default=0)


def _gates_of(raw: Any, suite: str | None) -> dict[str, bool]:
    defaults = SUITE_DEFAULTS.get(suite or "golden") or SUITE_DEFAULTS["golden"]
    gates = {key: bool(getattr(defaults, key)) for key in GATE_KEYS.values()}
    if isinstance(raw, dict):
        for name, value in raw.items():
            key = GATE_KEYS.get(str(name), str(name))  # a JSON object's keys are text
            if value is not None:
                gates[key] = bool(value)
    elif isinstance(raw, list):
        named = {GATE_KEYS.get(str(x), str(x)) for x in raw}
        gates = {key: key in named for key in gates}
    return gates


def load_run(
    run_dir: Path | str,
    *,
    limits: RunDirLimits | None = None,
    each: Callable[[int, ResultLine], None] | None = None,
    manifest: Manifest | None = None,
    keep_task_entries: bool = True,
) -> RunData:
    """Read a run folder through `RunDir.read`, the one reader every command shares,
    within `limits` (the project's `[rundir]`; None: the defaults). `each(offset, line)`,
    when given, sees every checked line as it is read (the viewer's per-line facts come
    from the same single pass over results.jsonl); `manifest`: run.json when the caller
    has read it already. `keep_task_entries=False` (the readers that need only the
    records: bless, compare, gate): run.json's task entries are let go once read, before
    the lines are, and `RunData.manifest.tasks` is empty (a manifest given is not changed).

    A missing or damaged run.json or results line is the same one-line UserError that
    `summarize` and `show` give; a torn last line is skipped and named in `warnings`.
    A repeated (task, model, trial) line is counted once, as the summary counts it.
    """
    run = RunDir.open(run_dir, limits=limits)
    # summary.json read first: its text (a big allocation, handed back when let go) is
    # not held on top of what run.json's entries leave, nor beside the tallies (a
    # damaged one is still named after the lines, as when it was read after them)
    stored, damaged = _stored(run)
    read_here = manifest is None
    manifest = manifest if manifest is not None else run.manifest()
    warnings: list[str] = []
    summarizer = summarizer_for(manifest, TrialTally)  # each task's entry read into it
    listed = _listed_gates(manifest)
    lines = run.iter_results_with_offsets(warnings, manifest=manifest)  # run.json read
    if read_here and not keep_task_entries:
        manifest.tasks = []  # the entries themselves: a few hundred bytes a task
    finished = 0
    for offset, line in lines:
        if each is not None:
            each(offset, line)
        finished += 1
        summarizer.add(line)  # a repeated (task, model, trial) is counted once
    if damaged is not None:
        raise damaged
    summary = covering(stored, summarizer.keys()) or summarizer.summary(last=True)
    del stored
    # each (task, model) was read into one TrialTally: the summary's counters and what
    # tracking adds; a last summary kept of each only its TrialFigures (a stored summary
    # leaves the tallies, turned into theirs one by one); the summarizer is let go here
    kept = summarizer.kept if summarizer.done else cast(
        dict[tuple[str, str], TallyTotals], summarizer.tallies)
    del summarizer
    return RunData(run.path, manifest, summary, _records(summary, listed, kept),
                   _models(summary), warnings, finished)


def _stored(run: RunDir) -> tuple[Summary | None, UserError | None]:
    """summary.json as the summary may use it, or why it cannot be read."""
    try:
        return stored_current(run), None
    except UserError as exc:
        return None, exc


_UNLISTED = object()  # a task without a run.json entry: its gates are its first line's


def _listed_gates(manifest: Manifest) -> dict[str, Any]:
    """Each run.json task entry's `gates` by task id (None: the entry has none), equal
    lists one shared object: all that is read of an entry after the summary's part."""
    shared: dict[tuple[Any, ...], Any] = {}
    out: dict[str, Any] = {}
    for tid, meta in manifest.task_meta().items():
        raw = meta.get("gates")
        if isinstance(raw, list):
            # keyed by type too (1 and True are equal, not the same gate name);
            # an unhashable member: this task's own list
            with contextlib.suppress(TypeError):
                raw = shared.setdefault(tuple((type(x), x) for x in raw), raw)
        out[tid] = raw
    return out


def _figures(kept: TallyTotals | None) -> TrialFigures:
    """What a record keeps of its task: the figures a last summary kept, or a stored
    summary's tally made into them (let go after)."""
    if isinstance(kept, TrialFigures):
        return kept
    if isinstance(kept, TrialTally):
        kept.close()
        return kept.totals()
    return TrialFigures()


def _records(
    summary: Summary, listed: dict[str, Any], kept: dict[tuple[str, str], TallyTotals]
) -> list[TaskRecord]:
    """A record per summary row; what was kept of each task is handed over (`kept` is
    emptied), and what repeats from task to task (model id, gate flags) is one object
    shared by the records."""
    model_ids: dict[str, str] = {}
    shared_gates: dict[tuple[tuple[str, bool], ...], dict[str, bool]] = {}
    records = []
    for row in summary.tasks:
        figures = _figures(kept.pop(row.key, None))
        raw = listed.get(row.task_id, _UNLISTED)
        gates = _gates_of(figures.first_gates if raw is _UNLISTED else raw, row.suite)
        gates = shared_gates.setdefault(tuple(gates.items()), gates)
        model_id = model_ids.get(row.model)
        if model_id is None:
            model_id = model_ids[row.model] = parse_model_spec(row.model).model_id
        records.append(TaskRecord(row, model_id, gates, figures))
    return records


def _models(summary: Summary) -> list[str]:
    """The summary's models that have a row, in its order (then any other with a row)."""
    with_rows = dict.fromkeys(r.model for r in summary.tasks)
    return [m for m in dict.fromkeys([*summary.models, *with_rows]) if m in with_rows]
