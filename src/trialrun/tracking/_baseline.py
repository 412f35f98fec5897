"""Baselines: build one from a run, find it, load it (trialrun or Gemini-Scribe), write it.

The file itself is `trialrun.rundir.Baseline` (format "trialrun-baseline/1"): per task the
run's counts and estimators plus per-trial means and the raw latencies.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trialrun.core import slugify
from trialrun.errors import UserError
from trialrun.rundir import (
    BASELINE_FORMAT,
    Baseline,
    RecordError,
    baseline_by_tasks,
    baseline_name,
    packed_entry,
    read_json,
    write_json_atomic,
    write_json_streamed_atomic,
)
from trialrun.tracking._aggregate import aggregate_counts
from trialrun.tracking._counts import counts_of_record
from trialrun.tracking._run_data import RunData, TaskRecord, run_k
from trialrun.tracking._scribe_baseline import convert_scribe, is_scribe_baseline, parse_utc

FORMAT = BASELINE_FORMAT


def baseline_path(baselines_dir: Path | str, provider: str, model_id: str) -> Path:
    """Where the baseline of (provider, model) is looked up.

    `<provider>-<slug(model name)>.json`; when only a file named the 0.1.0 way exists (the
    base URL slugged into the name), that one, so a CI that blessed before the rename keeps
    its baseline (`legacy_baseline_note` says so). Writers use `baseline_target`.
    """
    target = baseline_target(baselines_dir, provider, model_id)
    old = legacy_baseline_path(baselines_dir, provider, model_id)
    return old if old is not None and old.is_file() and not target.is_file() else target


def baseline_target(baselines_dir: Path | str, provider: str, model_id: str) -> Path:
    """The file `trialrun bless` writes for (provider, model)."""
    return Path(baselines_dir) / baseline_name(provider, model_id)


def legacy_baseline_path(baselines_dir: Path | str, provider: str, model_id: str) -> Path | None:
    """The 0.1.0 name of the same baseline (base URL in it), when it differs from today's."""
    old = f"{provider}-{slugify(model_id)}.json" if model_id else f"{provider}.json"
    return None if old == baseline_name(provider, model_id) else Path(baselines_dir) / old


def legacy_baseline_note(baselines_dir: Path | str, provider: str, model_id: str) -> str | None:
    """One line when the baseline found is an old-named file, else None."""
    found = baseline_path(baselines_dir, provider, model_id)
    target = baseline_target(baselines_dir, provider, model_id)
    if found == target:
        return None
    return (
        f"{found}: baseline found under its old name (base URL in the file name); "
        f"rename it to {target.name} (the name `trialrun bless` now writes)"
    )


def task_entry(record: TaskRecord) -> dict[str, Any]:
    return {
        "task_id": record.task_id,
        "tier": record.tier,
        "suite": record.suite,
        "policy": record.policy,
        "metric": record.metric,
        "k": record.k,
        "n": record.n,
        "pass_n": record.pass_n,  # marks the counting rule: infra errors are failed passes
        "passed": record.passed,
        "solved": record.solved,
        "undetermined": record.undetermined,
        "infra_errors": record.infra_errors,
        "pass_k": record.pass_k,
        "solve_k": record.solve_k,
        "pass_at_k": record.pass_at_k,
        "flaky": record.flaky,
        "metrics": _listed(record.metrics()),
    }


def _listed(metrics: dict[str, Any]) -> dict[str, Any]:
    """A task's metrics as the baseline file holds them (packed latencies as a list)."""
    return {**metrics, "latencies_s": list(metrics.get("latencies_s") or [])}


def build_baseline(
    run: RunData,
    model: str,
    *,
    forced: bool = False,
    reason: str | None = None,
    date: datetime | None = None,
) -> Baseline:
    """The baseline of one model of a run, its task entries in memory (no refusal checks;
    see `bless`, which writes one with `write_run_baseline` instead)."""
    baseline = baseline_header(run, model, forced=forced, reason=reason, date=date)
    baseline.tasks = [task_entry(r) for r in _ordered(run, model)]
    return baseline


def baseline_header(
    run: RunData,
    model: str,
    *,
    forced: bool = False,
    reason: str | None = None,
    date: datetime | None = None,
) -> Baseline:
    """`build_baseline` without its task entries (`tasks` empty): the aggregate is
    computed from the run's records one task at a time, as the entries would give it."""
    records = _ordered(run, model)
    aggregate = aggregate_counts(counts_of_record(r) for r in records)
    summary_agg = run.summary.aggregate.get(model)
    if isinstance(summary_agg, dict):
        aggregate["summary"] = summary_agg
    now = datetime.now(UTC)
    when = date or _started_at(run) or now
    first = records[0]
    return Baseline(
        model=first.model_id,
        provider=first.provider,
        tasks=[],
        run_id=run.run_id,
        git_sha=run.git_sha,
        spec=model,
        date=_iso(when),
        blessed_at=_iso(now),
        k=run_k(run, records),
        trialrun_version=run.manifest.trialrun_version,
        forced=forced,
        reason=reason if forced else None,
        aggregate=aggregate,
    )


def _ordered(run: RunData, model: str) -> list[TaskRecord]:
    """The model's records by task id (a baseline's order); UserError if it has none."""
    records = run.for_model(model)
    if not records:
        raise UserError(f"{run.path}: model '{model}' has no results in this run")
    return sorted(records, key=lambda r: r.task_id)


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write a baseline file atomically (a reader never sees half of one)."""
    write_json_atomic(path, baseline.to_json())


def write_run_baseline(path: Path, header: Baseline, run: RunData) -> None:
    """Write `header` (from `baseline_header`) with the task entries of its model in
    `run`: the same bytes as `write_baseline` of `build_baseline`, each entry made and
    written in turn, so neither the entries nor the file's text are held."""
    records = _ordered(run, str(header.spec))
    write_json_streamed_atomic(
        path, header.to_json(), "tasks", lambda: (task_entry(r) for r in records)
    )


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _started_at(run: RunData) -> datetime | None:
    """The run's start time (run.json `started_at`) as UTC, if it parses."""
    value = run.manifest.started_at
    if isinstance(value, str):
        try:
            return parse_utc(value)
        except ValueError:
            return None
    return None


def load_baseline(path: Path | str) -> Baseline:
    """A trialrun baseline, or a Gemini-Scribe baseline converted to one; UserError if neither."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: baseline not found; bless a run with `trialrun bless RUN_DIR`")
    # a large file a task entry at a time, its latencies packed (8 bytes a trial); one of
    # few entries (each of many trials) read whole, then packed likewise
    data = read_json(path, "restore it or bless the run again", in_parts=baseline_by_tasks)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        if isinstance(tasks := data.get("tasks"), list):
            data["tasks"] = [packed_entry(entry) for entry in tasks]
        try:
            return Baseline.from_json(data)
        except RecordError as exc:
            raise UserError(f"{path}: {exc}") from None
    if is_scribe_baseline(data):
        return Baseline.from_json(convert_scribe(data, path))
    raise UserError(
        f'{path}: not a baseline (no "format": "{FORMAT}" and not a Gemini-Scribe '
        "baseline); pass a file written by `trialrun bless`"
    )


def import_scribe_baseline(file: Path | str, out_dir: Path | str = "baselines") -> Path:
    """Convert one Scribe baseline file into `OUT_DIR/<provider>-<slug(model name)>.json`."""
    path = Path(file)
    if path.is_dir():
        raise UserError(f"{path}: is a folder; pass one Gemini-Scribe baseline JSON file")
    if not path.is_file():
        raise UserError(f"{path}: file not found; pass a Gemini-Scribe baseline JSON file")
    data = read_json(path, "fix the file or export it again")
    if not is_scribe_baseline(data):
        raise UserError(
            f"{path}: not a Gemini-Scribe baseline (needs run_id, model, provider and tasks "
            "with id and n_runs)"
        )
    baseline = Baseline.from_json(convert_scribe(data, path))
    if Path(out_dir).is_file():
        raise UserError(f"-o {out_dir}: is a file; pass a folder for the baseline")
    target = baseline_target(out_dir, baseline.provider, baseline.model)
    try:
        write_baseline(target, baseline)
    except OSError as exc:
        raise UserError(
            f"{target}: cannot write ({exc.strerror or exc}); pick another -o folder"
        ) from None
    return target
