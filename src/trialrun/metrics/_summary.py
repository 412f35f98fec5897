"""summary.json from results.jsonl lines (+ run.json's task metadata), nothing else.

Counting rules (README, "Verdicts and metrics"):
- infra-error trials (`error.kind == "infra"`) are left out of every denominator;
  `n` = finished trials minus infra errors, the pass^k denominator;
- undetermined trials (solve is None, not infra) are also left out of the solve^k and
  pass@k denominator (`n - undetermined`);
- fewer than k counted trials: that figure is null, the task is left out of that
  aggregate and counted in `insufficient`.
A task "meets" pass^k (solve^k) for `by_tier` when its figure is 1.0, i.e. every counted
trial succeeded and at least k were counted.
`failed_graders` counts trials, not verdicts: a trial where any verdict of a grader type
failed counts once for it. A row carries `tracked` (each of the task's `tracked_metrics`
with its value) only when run.json lists them, so older runs summarize as they did.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from trialrun.core import is_unpinned, parse_model_spec
from trialrun.metrics._estimators import pass_at_k, pass_hat_k
from trialrun.metrics._tracked import canonical_metric
from trialrun.rundir import Manifest, ResultLine, RunDir, Summary

Line = ResultLine


def is_infra(line: Line) -> bool:
    return line.is_infra


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _pos_int(value: Any) -> int | None:
    """A k: an int >= 1 (not a bool); anything else is None (the caller falls back)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _extra(line: Line | None, key: str) -> Any:
    return line.extra.get(key) if line is not None else None


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _tags(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


def task_row(
    task_id: str, model: str, meta: dict[str, Any], lines: list[Line], k_default: int
) -> dict[str, Any]:
    """One (task, model) row of summary.json."""
    first = lines[0] if lines else None
    k = _pos_int(meta.get("k")) or _pos_int(_extra(first, "k")) or k_default
    counted = [t for t in lines if not t.is_infra]
    n = len(counted)
    passed = sum(1 for t in counted if t.passed is True)
    solved = sum(1 for t in counted if t.solve is True)
    undetermined = sum(1 for t in counted if t.solve is None)
    solve_n = n - undetermined
    failed: dict[str, int] = {}
    errors: dict[str, int] = {}
    for t in lines:
        names = [str(v.get("grader")) for v in _dicts(t.verdicts) if v.get("passed") is False]
        for name in dict.fromkeys(names):
            failed[name] = failed.get(name, 0) + 1
        if t.error_kind:
            errors[t.error_kind] = errors.get(t.error_kind, 0) + 1
    turns = [x for x in (_num(t.turns) for t in counted) if x is not None]
    provider = (_str(first.provider) if first else None) or model.partition(":")[0]
    row: dict[str, Any] = {
        "task_id": task_id,
        "model": model,
        "provider": provider,
        "suite": _str(meta.get("suite")) or _str(_extra(first, "suite")),
        "tier": _str(meta.get("tier")) if meta else _str(_extra(first, "tier")),
        "k": k,
        "n": n,
        "passed": passed,
        "solved": solved,
        "undetermined": undetermined,
        "infra_errors": len(lines) - n,
        "pass_k": pass_hat_k(n, passed, k) if n >= k else None,
        "solve_k": pass_hat_k(solve_n, solved, k) if solve_n >= k else None,
        "pass_at_k": pass_at_k(solve_n, solved, k) if solve_n >= k else None,
        "flaky": 0 < solved < solve_n,
        # extras (not pinned file keys)
        "metric": _str(meta.get("metric")) or _str(_extra(first, "metric")) or "pass^k",
        "policy": _str(meta.get("policy")) or _str(_extra(first, "policy")),
        "tags": _tags(meta.get("tags")) if "tags" in meta else _tags(_extra(first, "tags")),
        "mean_turns": _mean(turns),
        "failed_graders": failed,
        "errors": errors,
        "safety_violations": sum(1 for t in lines if t.safety_violation),
    }
    row.update(trajectory_row(counted))
    tracked = meta.get("tracked_metrics")
    if isinstance(tracked, list):
        row["tracked"] = tracked_values(tracked, row, counted)
    return row


def trajectory_row(counted: list[Line]) -> dict[str, Any]:
    """Per-task trajectory figures over the counted trials that carry them: mean
    `repeated_calls` and `tool_errors` per trial, `recovered_rate` (trials that recovered
    from every failed call over trials with one; None without any), median
    `time_to_first_tool_s`. Empty for lines written before these figures existed, so
    older runs summarize as they did."""
    with_figures = [t for t in counted if t.repeated_calls is not None]
    if not with_figures:
        return {}
    errored = [t for t in with_figures if t.recovered is not None]
    firsts = [x for x in (_num(t.time_to_first_tool_s) for t in with_figures) if x is not None]
    return {
        "repeated_calls": _mean([float(t.repeated_calls or 0) for t in with_figures]),
        "tool_errors": _mean([float(t.tool_errors or 0) for t in with_figures]),
        "recovered_rate": (
            sum(1 for t in errored if t.recovered) / len(errored) if errored else None
        ),
        "trials_with_tool_errors": len(errored),
        "time_to_first_tool_s": percentile(firsts, 50),
    }


def _tokens(line: Line) -> float | None:
    tok = line.tokens
    if not isinstance(tok, dict):
        return None
    parts = [_num(tok.get("prompt")), _num(tok.get("completion"))]
    return None if all(p is None for p in parts) else sum(p or 0.0 for p in parts)


def tracked_values(
    names: list[Any], row: dict[str, Any], counted: list[Line]
) -> dict[str, float | None]:
    """Each tracked metric (canonical name) → its value for this row; None without data.

    Estimators are the row's own; rates and per-trial means are over the counted trials
    (infra errors left out; solve_rate also leaves the undetermined out).
    """
    latencies = [x for x in (_num(t.latency_s) for t in counted) if x is not None]
    turns = _mean([x for x in (_num(t.turns) for t in counted) if x is not None])
    solve_n = row["n"] - row["undetermined"]
    values: dict[str, float | None] = {
        "pass^k": row["pass_k"],
        "solve^k": row["solve_k"],
        "pass@k": row["pass_at_k"],
        "pass_rate": row["passed"] / row["n"] if row["n"] else None,
        "solve_rate": row["solved"] / solve_n if solve_n else None,
        "latency_p50": percentile(latencies, 50),
        "latency_p95": percentile(latencies, 95),
        "cost": _mean([x for x in (_num(t.cost_usd) for t in counted) if x is not None]),
        "tokens": _mean([x for x in (_tokens(t) for t in counted) if x is not None]),
        "turns": turns,
        "steps": turns,
        "tool_calls": _mean([float(len(t.tool_calls)) for t in counted]),
        "repeated_calls": row.get("repeated_calls"),
        "tool_errors": row.get("tool_errors"),
        "recovered_rate": row.get("recovered_rate"),
        "time_to_first_tool": row.get("time_to_first_tool_s"),
    }
    out: dict[str, float | None] = {}
    for name in names:
        canonical = canonical_metric(str(name)) or str(name)
        out[canonical] = values.get(canonical)
    return out


def coverage(rows: list[dict[str, Any]], key: str) -> tuple[int, int]:
    """(tasks with a `key` figure, tasks) over summary rows: what a headline rate is over."""
    return sum(1 for r in rows if r.get(key) is not None), len(rows)


def _meets(value: float | None) -> bool:
    return value is not None and value >= 1.0 - 1e-12


def aggregate(rows: list[dict[str, Any]], lines: list[Line], *, tiers: bool = True) -> dict:
    """Averages of per-task figures; rates over all counted trials; latency, tokens, cost."""
    pass_ks = [r["pass_k"] for r in rows if r["pass_k"] is not None]
    solve_ks = [r["solve_k"] for r in rows if r["solve_k"] is not None]
    at_ks = [r["pass_at_k"] for r in rows if r["pass_at_k"] is not None]
    n_total = sum(r["n"] for r in rows)
    solve_total = sum(r["n"] - r["undetermined"] for r in rows)
    counted = [t for t in lines if not t.is_infra]
    latencies = [x for x in (_num(t.latency_s) for t in counted) if x is not None]
    turns = [x for x in (_num(t.turns) for t in counted) if x is not None]
    tokens = {"prompt": 0, "cached": 0, "completion": 0}
    costs: list[float] = []
    for t in lines:
        tok = t.tokens
        if isinstance(tok, dict):
            for key in tokens:
                tokens[key] += int(_num(tok.get(key)) or 0)
        cost = _num(t.cost_usd)
        if cost is not None:
            costs.append(cost)
    out: dict[str, Any] = {
        "tasks": len(rows),
        "trials": len(lines),
        "pass_k_rate": _mean(pass_ks),
        "solve_k_rate": _mean(solve_ks),
        "pass_at_k_rate": _mean(at_ks),
        "mean_pass_rate": sum(r["passed"] for r in rows) / n_total if n_total else None,
        "mean_solve_rate": sum(r["solved"] for r in rows) / solve_total if solve_total else None,
        "flaky_task_count": sum(1 for r in rows if r["flaky"]),
        "insufficient": sum(1 for r in rows if r["pass_k"] is None or r["solve_k"] is None),
        "undetermined": sum(r["undetermined"] for r in rows),
        "infra_errors": sum(r["infra_errors"] for r in rows),
        "safety_violations": sum(r["safety_violations"] for r in rows),
        "mean_turns": _mean(turns),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "tokens": tokens,
        "cost_usd": sum(costs) if costs else None,
    }
    if tiers:
        by_tier: dict[str, dict[str, int]] = {}
        for r in sorted(rows, key=lambda r: str(r["tier"])):
            if not r["tier"]:
                continue
            entry = by_tier.setdefault(r["tier"], {"tasks": 0, "passed_k": 0, "solved_k": 0})
            entry["tasks"] += 1
            entry["passed_k"] += _meets(r["pass_k"])
            entry["solved_k"] += _meets(r["solve_k"])
        out["by_tier"] = by_tier
    return out


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
    are made for every (task, model) it lists, even with no finished trial yet.
    """
    warnings = list(warnings or [])
    meta_by_id = {str(m["task_id"]): m for m in _dicts(tasks_meta) if m.get("task_id")}
    seen: set[tuple[str, str, int]] = set()
    by_key: dict[tuple[str, str], list[Line]] = {}
    duplicates = 0
    for line in results_lines:
        ident = line.key
        if ident in seen:
            duplicates += 1
            continue
        seen.add(ident)
        by_key.setdefault(ident[:2], []).append(line)
    if duplicates:
        warnings.append(f"{duplicates} duplicate results line(s) ignored (same task, model, trial)")

    model_list = [m for m in models or [] if isinstance(m, str)]
    for _, model in by_key:
        if model not in model_list:
            model_list.append(model)
    keys = [(tid, m) for m in model_list for tid in meta_by_id]
    keys += [key for key in by_key if key not in set(keys)]
    k_default = _pos_int(k) or 1
    rows = [
        task_row(tid, m, meta_by_id.get(tid, {}), by_key.get((tid, m), []), k_default)
        for tid, m in keys
    ]

    aggregate_by_model: dict[str, Any] = {}
    by_suite: dict[str, Any] = {}
    by_tag: dict[str, Any] = {}
    for model in model_list:
        mrows = [r for r in rows if r["model"] == model]
        mlines = [t for r in mrows for t in by_key.get((r["task_id"], model), [])]
        aggregate_by_model[model] = aggregate(mrows, mlines)
        groups: dict[str, dict[str, list]] = {"suite": {}, "tag": {}}
        for r in mrows:
            rlines = by_key.get((r["task_id"], model), [])
            names = {"suite": [r["suite"]] if r["suite"] else [], "tag": r["tags"]}
            for kind, values in names.items():
                for value in values:
                    bucket = groups[kind].setdefault(value, [[], []])
                    bucket[0].append(r)
                    bucket[1].extend(rlines)
        by_suite[model] = {
            s: aggregate(g[0], g[1], tiers=False) for s, g in groups["suite"].items()
        }
        by_tag[model] = {
            t: aggregate(g[0], g[1], tiers=False) for t, g in sorted(groups["tag"].items())
        }

    unpinned = [
        m for m in model_list if m.strip() and is_unpinned(parse_model_spec(m).model_id or m)
    ]
    for m in unpinned:
        warnings.append(f"model '{m}' is unpinned (-latest/-preview): results may drift")
    expected = sum(_pos_int(m.get("k")) or k_default for m in meta_by_id.values()) * len(
        model_list
    )
    finished = sum(len(v) for v in by_key.values())
    return Summary(
        run_id=run_id,
        models=model_list,
        k=_pos_int(k),
        tasks=rows,
        aggregate=aggregate_by_model,
        by_suite=by_suite,
        by_tag=by_tag,
        unpinned_models=unpinned,
        expected_trials=expected if meta_by_id else finished,
        finished_trials=finished,
        warnings=warnings,
    )


def summarize_run(
    results: Iterable[Line], manifest: Manifest, *, warnings: list[str] | None = None
) -> Summary:
    """The summary of a run folder's results under its manifest."""
    return summarize(
        results,
        manifest.tasks,
        run_id=manifest.run_id,
        models=manifest.models,
        k=manifest.k,
        warnings=warnings,
    )


def current_summary(run: RunDir, results: list[Line], manifest: Manifest) -> Summary:
    """summary.json when it covers every result, else recomputed (an interrupted run)."""
    stored = run.stored_summary()
    if stored is not None:
        covered = {(str(r.get("task_id")), str(r.get("model"))) for r in stored.tasks}
        if all(line.key[:2] in covered for line in results):
            return stored
    return summarize_run(results, manifest)
