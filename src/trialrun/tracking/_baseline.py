"""The baseline file: a blessed run summary for one (provider, model).

`baselines/<provider>-<slug(model id)>.json`, format "trialrun-baseline/1". Per task it keeps
the counts and estimators of the run plus per-trial means (turns, tool calls, tokens,
cost) and latency percentiles with the raw trial latencies (so P95 can be recomputed over
any subset of tasks). Gemini-Scribe baseline files are read too (converted on load).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.metrics import percentile
from trialrun.tracking._run_data import RunData, TaskRecord

FORMAT = "trialrun-baseline/1"


def baseline_name(provider: str, model_id: str) -> str:
    from trialrun.models import slugify

    return f"{provider}-{slugify(model_id)}.json" if model_id else f"{provider}.json"


def baseline_path(baselines_dir: Path | str, provider: str, model_id: str) -> Path:
    return Path(baselines_dir) / baseline_name(provider, model_id)


def task_entry(record: TaskRecord) -> dict[str, Any]:
    return {
        "task_id": record.task_id,
        "tier": record.tier,
        "suite": record.suite,
        "policy": record.policy,
        "metric": record.metric,
        "k": record.k,
        "n": record.n,
        "passed": record.passed,
        "solved": record.solved,
        "undetermined": record.undetermined,
        "infra_errors": record.infra_errors,
        "pass_k": record.pass_k,
        "solve_k": record.solve_k,
        "pass_at_k": record.pass_at_k,
        "flaky": record.flaky,
        "metrics": record.metrics(),
    }


def aggregate_of(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate figures recomputed from baseline task entries (fractions 0–1)."""

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    pass_ks = [t["pass_k"] for t in tasks if t.get("pass_k") is not None]
    solve_ks = [t["solve_k"] for t in tasks if t.get("solve_k") is not None]
    n = sum(int(t.get("n") or 0) for t in tasks)
    solve_n = sum(int(t.get("n") or 0) - int(t.get("undetermined") or 0) for t in tasks)
    latencies = [x for t in tasks for x in (t.get("metrics") or {}).get("latencies_s") or []]
    trials = sum(int((t.get("metrics") or {}).get("trials") or 0) for t in tasks)
    cost = sum(
        float((t.get("metrics") or {}).get("cost_usd") or 0.0)
        * int((t.get("metrics") or {}).get("trials") or 0)
        for t in tasks
    )
    return {
        "tasks": len(tasks),
        "pass_k_rate": mean(pass_ks),
        "solve_k_rate": mean(solve_ks),
        "mean_pass_rate": sum(int(t.get("passed") or 0) for t in tasks) / n if n else None,
        "mean_solve_rate": (
            sum(int(t.get("solved") or 0) for t in tasks) / solve_n if solve_n else None
        ),
        "tasks_meeting_pass_k": sum(1 for t in tasks if (t.get("pass_k") or 0) >= 1 - 1e-12),
        "tasks_meeting_solve_k": sum(1 for t in tasks if (t.get("solve_k") or 0) >= 1 - 1e-12),
        "flaky_task_count": sum(1 for t in tasks if t.get("flaky")),
        "insufficient": sum(
            1 for t in tasks if t.get("pass_k") is None or t.get("solve_k") is None
        ),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "cost_usd": cost,
        "cost_usd_per_trial": cost / trials if trials else None,
    }


def run_k(run: RunData, records: list[TaskRecord]) -> int:
    """The run's k: the override from run.json, else the smallest task k."""
    override = run.manifest.get("k")
    if isinstance(override, int) and override > 0:
        return override
    return min((r.k for r in records), default=0)


def build_baseline(
    run: RunData,
    model: str,
    *,
    forced: bool = False,
    reason: str | None = None,
    date: datetime | None = None,
) -> dict[str, Any]:
    """The baseline dict for one model of a run (no refusal checks; see `bless`)."""
    records = run.for_model(model)
    if not records:
        raise UserError(f"{run.path}: model '{model}' has no results in this run")
    first = records[0]
    tasks = [task_entry(r) for r in sorted(records, key=lambda r: r.task_id)]
    aggregate = aggregate_of(tasks)
    summary_agg = (run.summary.get("aggregate") or {}).get(model)
    if isinstance(summary_agg, dict):
        aggregate["summary"] = summary_agg
    now = datetime.now(UTC)
    when = date or _started_at(run) or now
    data: dict[str, Any] = {
        "format": FORMAT,
        "run_id": run.run_id,
        "git_sha": run.git_sha,
        "model": first.model_id,
        "provider": first.provider,
        "spec": model,
        "date": _iso(when),
        "blessed_at": _iso(now),
        "k": run_k(run, records),
        "trialrun_version": run.manifest.get("trialrun_version"),
        "forced": forced,
    }
    if forced:
        data["reason"] = reason
    data["tasks"] = tasks
    data["aggregate"] = aggregate
    return data


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _started_at(run: RunData) -> datetime | None:
    """The run's start time (run.json `started_at`) as UTC, if it parses."""
    from trialrun.tracking._scribe_baseline import parse_utc

    value = run.manifest.get("started_at")
    if isinstance(value, str):
        try:
            return parse_utc(value)
        except ValueError:
            return None
    return None


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to a temp file in the same folder, fsync, then os.replace: all or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_baseline(path: Path | str) -> dict[str, Any]:
    """A trialrun baseline, or a Gemini-Scribe baseline converted to one; UserError if neither."""
    from trialrun.tracking._scribe_baseline import convert_scribe, is_scribe_baseline

    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: baseline not found; bless a run with `trialrun bless RUN_DIR`")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); restore it or bless the run again"
        ) from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; pass a baseline JSON file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        validate_baseline(data, path)
        return data
    if is_scribe_baseline(data):
        return convert_scribe(data, path)
    raise UserError(
        f'{path}: not a baseline (no "format": "{FORMAT}" and not a Gemini-Scribe '
        "baseline); pass a file written by `trialrun bless`"
    )


def validate_baseline(data: dict[str, Any], path: Path) -> None:
    for key, kind in (("model", str), ("provider", str), ("tasks", list)):
        if not isinstance(data.get(key), kind):
            raise UserError(f"{path}: field '{key}' missing or not a {kind.__name__}")
    for i, task in enumerate(data["tasks"]):
        if not isinstance(task, dict) or not isinstance(task.get("task_id"), str):
            raise UserError(f"{path}: tasks[{i}].task_id missing or not a string")
        for key in ("n", "passed", "solved"):
            value = task.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise UserError(f"{path}: tasks[{i}].{key} ({task['task_id']}) must be a count ≥ 0")
