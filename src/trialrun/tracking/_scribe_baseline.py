"""Gemini-Scribe baseline files, read as they are and converted to trialrun baselines.

Shape: `{run_id (ISO timestamp), git_sha, model, provider, tasks: [{id, difficulty,
category, n_runs, passed_count, solved_count, pass_k (bool), solve_k (bool), flaky,
metrics, runs: [{metrics {turns, tool_calls, prompt_tokens, output_tokens, cost_usd,
duration_ms, …}, …}]}], aggregate}`. Its `aggregate` holds percentages and is ignored:
everything is recomputed from `tasks`. Unknown keys are ignored.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.metrics import pass_at_k, pass_hat_k, percentile
from trialrun.rundir import BASELINE_FORMAT as FORMAT
from trialrun.tracking._aggregate import aggregate_of

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})[:-](\d{2})(?:[:-](\d{2})(?:[.,-](\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?$"
)


def is_scribe_baseline(data: Any) -> bool:
    """Recognised by shape: tasks carry `id` and `n_runs` (trialrun's carry `task_id`)."""
    if not isinstance(data, dict) or "format" in data or not isinstance(data.get("tasks"), list):
        return False
    tasks = data["tasks"]
    if not tasks:
        return "run_id" in data and "model" in data
    return isinstance(tasks[0], dict) and "id" in tasks[0] and "n_runs" in tasks[0]


def parse_utc(text: str) -> datetime:
    """ISO timestamps, also the file-name-safe `2026-05-24T22-49-06-481Z`, as aware UTC."""
    match = _ISO.match(text.strip())
    if not match:
        raise ValueError(f"not an ISO timestamp: {text!r}")
    year, month, day, hour, minute, second, _frac, zone = match.groups()
    when = datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
    )
    if zone and zone != "Z":
        zone = zone.replace(":", "")
        sign = 1 if zone[0] == "+" else -1
        offset = sign * (int(zone[1:3]) * 60 + int(zone[3:5]))

        return when.replace(tzinfo=timezone(timedelta(minutes=offset))).astimezone(UTC)
    return when.replace(tzinfo=UTC)


def _count(path: Path, i: int, task: dict[str, Any], key: str) -> int:
    value = task.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise UserError(f"{path}: tasks[{i}].{key} must be a count ≥ 0 (got {value!r})")
    return value


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _task_metrics(task: dict[str, Any]) -> dict[str, Any]:
    runs = [r for r in task.get("runs") or [] if isinstance(r, dict)]
    per_run = [r.get("metrics") or {} for r in runs if isinstance(r.get("metrics"), dict)]
    summary = obj if isinstance(obj := task.get("metrics"), dict) else {}

    def figure(key: str) -> float | None:
        values = [v for v in (_num(m.get(key)) for m in per_run) if v is not None]
        return _mean(values) if values else _num(summary.get(key))

    latencies = [v / 1000 for v in (_num(m.get("duration_ms")) for m in per_run) if v is not None]
    prompt, output = figure("prompt_tokens"), figure("output_tokens")
    mean_latency = _num(summary.get("duration_ms"))
    return {
        "turns": figure("turns"),
        "tool_calls": figure("tool_calls"),
        "tokens": (prompt or 0.0) + (output or 0.0) if prompt is not None or output else None,
        "cost_usd": figure("cost_usd"),
        "latency_p50_s": percentile(latencies, 50)
        if latencies
        else (mean_latency / 1000 if mean_latency is not None else None),
        "latency_p95_s": percentile(latencies, 95) if latencies else None,
        "latencies_s": [round(x, 6) for x in latencies],
        "trials": len(per_run) or int(task.get("n_runs") or 0),
    }


def convert_scribe(data: dict[str, Any], path: Path | str) -> dict[str, Any]:
    """A trialrun baseline dict from a Gemini-Scribe baseline; UserError names the field."""

    path = Path(path)
    for key in ("model", "provider"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise UserError(f"{path}: field '{key}' missing or not a string")
    run_id = data.get("run_id")
    if not isinstance(run_id, str):
        raise UserError(f"{path}: field 'run_id' missing or not a string (an ISO timestamp)")
    try:
        when = parse_utc(run_id)
    except ValueError:
        raise UserError(f"{path}: field 'run_id' is not an ISO timestamp ({run_id!r})") from None
    tasks: list[dict[str, Any]] = []
    ks: list[int] = []
    for i, task in enumerate(data.get("tasks") or []):
        if not isinstance(task, dict):
            raise UserError(f"{path}: tasks[{i}] must be an object")
        if not isinstance(task.get("id"), str) or not task["id"]:
            raise UserError(f"{path}: tasks[{i}].id missing or not a string")
        n = _count(path, i, task, "n_runs")
        passed = _count(path, i, task, "passed_count")
        solved = _count(path, i, task, "solved_count")
        if passed > n or solved > n:
            raise UserError(f"{path}: tasks[{i}] ({task['id']}): counts exceed n_runs")
        k = n  # Scribe's pass_k/solve_k mean "all n_runs succeeded"
        ks.append(k)
        tier = task.get("difficulty") if isinstance(task.get("difficulty"), str) else None
        tasks.append(
            {
                "task_id": task["id"],
                "tier": tier,
                "suite": "golden",
                "policy": "ALWAYS_PASSES",
                "metric": "pass^k",
                "k": k,
                "n": n,
                "pass_n": n,  # Scribe's pass counts every run: a harness error failed it
                "passed": passed,
                "solved": solved,
                "undetermined": 0,
                "infra_errors": 0,
                "pass_k": pass_hat_k(n, passed, k) if n else None,
                "solve_k": pass_hat_k(n, solved, k) if n else None,
                "pass_at_k": pass_at_k(n, solved, k) if n else None,
                "flaky": 0 < solved < n,
                "category": task.get("category"),
                "metrics": _task_metrics(task),
            }
        )
    return {
        "format": FORMAT,
        "run_id": run_id,
        "git_sha": data.get("git_sha") if isinstance(data.get("git_sha"), str) else None,
        "model": data["model"],
        "provider": data["provider"],
        "spec": f"{data['provider']}:{data['model']}",
        "date": when.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "k": max(ks, default=0),
        "forced": False,
        "source": {"format": "gemini-scribe", "file": str(path)},
        "tasks": tasks,
        "aggregate": aggregate_of(tasks),
    }
