"""Read a run directory (run.json, results.jsonl, summary.json) into per-(task, model) records.

Counts and estimators come from summary.json (the runner's summarize); per-trial figures
(turns, tool calls, tokens, cost, latency) come from results.jsonl. Only the run directory
is read: nothing here knows how the run was produced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError

GATE_KEYS = {"merge": "ci_merge_gate", "nightly": "nightly", "release": "release_candidate"}


@dataclass(slots=True)
class TaskRecord:
    """One task × one model of a run: counts, estimators and its trial lines."""

    task_id: str
    model: str  # the full spec text, e.g. "gemini:gemini-2.5-flash"
    provider: str
    model_id: str
    suite: str = "golden"
    tier: str | None = None
    policy: str = "ALWAYS_PASSES"
    metric: str = "pass^k"
    k: int = 3
    gates: dict[str, bool] = field(default_factory=dict)
    n: int = 0
    passed: int = 0
    solved: int = 0
    undetermined: int = 0
    infra_errors: int = 0
    pass_k: float | None = None
    solve_k: float | None = None
    pass_at_k: float | None = None
    flaky: bool = False
    trials: list[dict[str, Any]] = field(default_factory=list)

    @property
    def solve_n(self) -> int:
        """Trials counted for solve figures: infra errors and undetermined left out."""
        return max(self.n - self.undetermined, 0)

    @property
    def insufficient(self) -> bool:
        return self.solve_k is None or self.pass_k is None

    @property
    def meets_pass_k(self) -> bool:
        return self.pass_k is not None and self.pass_k >= 1.0 - 1e-12

    @property
    def meets_solve_k(self) -> bool:
        return self.solve_k is not None and self.solve_k >= 1.0 - 1e-12

    @property
    def counted_trials(self) -> list[dict[str, Any]]:
        return [t for t in self.trials if not _is_infra(t)]

    def in_gate(self, gate: str) -> bool:
        return bool(self.gates.get(GATE_KEYS.get(gate, gate), False))

    def metrics(self) -> dict[str, Any]:
        """Per-trial means (turns, tool calls, tokens, cost) and latency percentiles."""
        return trial_metrics(self.counted_trials)


def _is_infra(line: dict[str, Any]) -> bool:
    error = line.get("error")
    return isinstance(error, dict) and error.get("kind") == "infra"


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def trial_metrics(trials: list[dict[str, Any]]) -> dict[str, Any]:
    from trialrun.metrics import percentile

    latencies = [_num(t.get("latency_s")) for t in trials if t.get("latency_s") is not None]
    tokens = []
    for t in trials:
        tok = t.get("tokens") or {}
        tokens.append(_num(tok.get("prompt")) + _num(tok.get("completion")))
    return {
        "turns": _mean([_num(t.get("turns")) for t in trials]),
        "tool_calls": _mean([float(len(t.get("tool_calls") or [])) for t in trials]),
        "tokens": _mean(tokens),
        "cost_usd": _mean([_num(t.get("cost_usd")) for t in trials]),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "latencies_s": [round(x, 6) for x in latencies],
        "trials": len(trials),
    }


@dataclass(slots=True)
class RunData:
    path: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    results: list[dict[str, Any]]
    records: list[TaskRecord]
    models: list[str]

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id") or self.summary.get("run_id") or self.path.name)

    @property
    def git_sha(self) -> str | None:
        return self.manifest.get("git_sha")

    def for_model(self, model: str) -> list[TaskRecord]:
        return [r for r in self.records if r.model == model]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); rerun or restore the file"
        ) from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; rerun or restore the file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None


# results.jsonl keys whose type the readers rely on: key -> (allowed types, description)
_NUM = (int, float)
_LINE_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "task_id": ((str,), "a string"),
    "model": ((str,), "a string"),
    "provider": ((str, type(None)), "a string"),
    "trial": ((int,), "an integer"),
    "pass": ((bool, type(None)), "true, false or null"),
    "solve": ((bool, type(None)), "true, false or null"),
    "error": ((dict, type(None)), "an object {kind, message} or null"),
    "verdicts": ((list, type(None)), "a list"),
    "tool_calls": ((list, type(None)), "a list"),
    "tokens": ((dict, type(None)), "an object {prompt, cached, completion}"),
    "turns": ((*_NUM, type(None)), "a number"),
    "cost_usd": ((*_NUM, type(None)), "a number"),
    "latency_s": ((*_NUM, type(None)), "a number"),
}


def check_result_line(item: Any) -> str | None:
    """Why a results.jsonl line cannot be read (None when it is fine)."""
    if not isinstance(item, dict):
        return f"a results line must be a JSON object (got {type(item).__name__})"
    for key in ("task_id", "model"):
        if key not in item:
            return f"a results line needs task_id and model (missing {key})"
    for key, (types, what) in _LINE_TYPES.items():
        if key not in item:
            continue
        value = item[key]
        bad_bool = isinstance(value, bool) and bool not in types
        if bad_bool or not isinstance(value, types):
            return f"{key} must be {what} (got {json.dumps(value)[:40]})"
    for name in ("verdicts", "tool_calls"):
        for i, entry in enumerate(item.get(name) or []):
            if not isinstance(entry, dict):
                return f"{name}[{i}] must be an object"
    tokens = item.get("tokens") or {}
    for key, value in tokens.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, _NUM)):
            return f"tokens.{key} must be a number (got {json.dumps(value)[:40]})"
    return None


def read_results(path: Path) -> list[dict[str, Any]]:
    """results.jsonl lines; a torn last line (an interrupted write) is dropped.

    Any other unreadable line is a UserError naming the file, the line and the key: the
    summaries built from these lines must never crash on a damaged file.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; the results file is damaged") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    last = max((i for i, text in enumerate(lines, start=1) if text.strip()), default=0)
    out: list[dict[str, Any]] = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError:
            if number == last:
                break
            raise UserError(
                f"{path}:{number}: not a JSON line; the results file is damaged "
                "(remove the line or rerun)"
            ) from None
        problem = check_result_line(item)
        if problem is not None:
            raise UserError(
                f"{path}:{number}: {problem}; the results file is damaged (fix the line or rerun)"
            )
        out.append(item)
    return out


_ROW_COUNTS = ("n", "passed", "solved", "undetermined", "infra_errors")
_ROW_FRACTIONS = ("pass_k", "solve_k", "pass_at_k")


def _check_summary(summary: Any, path: Path) -> None:
    """summary.json rows: counts are integers, estimators fractions or null."""
    fix = "delete it to have it recomputed from results.jsonl"
    if not isinstance(summary, dict) or not isinstance(summary.get("tasks", []), list):
        raise UserError(f"{path}: expected an object with a 'tasks' list; {fix}")
    for i, row in enumerate(summary.get("tasks") or []):
        if not isinstance(row, dict):
            raise UserError(f"{path}: tasks[{i}] must be an object; {fix}")
        for key in _ROW_COUNTS:
            value = row.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise UserError(f"{path}: tasks[{i}].{key} must be an integer; {fix}")
        for key in _ROW_FRACTIONS:
            value = row.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, _NUM)):
                raise UserError(f"{path}: tasks[{i}].{key} must be a number or null; {fix}")
        k = row.get("k")
        if k is not None and (isinstance(k, bool) or not isinstance(k, int)):
            raise UserError(f"{path}: tasks[{i}].k must be an integer; {fix}")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _gates_of(meta: dict[str, Any], suite: str) -> dict[str, bool]:
    from trialrun.tasks import SUITE_DEFAULTS

    defaults = SUITE_DEFAULTS.get(suite) or SUITE_DEFAULTS["golden"]
    gates = {key: bool(getattr(defaults, key)) for key in GATE_KEYS.values()}
    raw = meta.get("gates")
    if isinstance(raw, dict):
        for key, value in raw.items():
            key = GATE_KEYS.get(key, key)
            if value is not None:
                gates[key] = bool(value)
    elif isinstance(raw, list):
        named = {GATE_KEYS.get(str(x), str(x)) for x in raw}
        gates = {key: key in named for key in gates}
    return gates


def _split_spec(spec: str, provider: str | None) -> tuple[str, str]:
    from trialrun.models import parse_model_spec

    parsed = parse_model_spec(spec)
    return (provider or parsed.provider), parsed.model_id


def load_run(run_dir: Path | str) -> RunData:
    """Read a run directory; a missing or damaged file is a UserError naming it."""
    path = Path(run_dir)
    results_path = path / "results.jsonl"
    if path.is_file():
        hint = path.parent if path.name in ("results.jsonl", "summary.json", "run.json") else None
        raise UserError(
            f"{path}: is a file, not a run directory; pass "
            + (f"its folder {hint}" if hint else "the folder `trialrun run` wrote")
        )
    if not path.is_dir() or not results_path.is_file():
        raise UserError(
            f"{path}: not a run directory (no results.jsonl); pass the folder "
            "`trialrun run` wrote, e.g. results/<run-id>"
        )
    manifest = _read_json(path / "run.json") if (path / "run.json").is_file() else {}
    if not isinstance(manifest, dict):
        raise UserError(f"{path / 'run.json'}: expected a JSON object")
    results = read_results(results_path)
    summary_path = path / "summary.json"
    if summary_path.is_file():
        summary = _read_json(summary_path)
        _check_summary(summary, summary_path)
    else:
        summary = _summarize(results, manifest)

    metas: dict[str, dict[str, Any]] = {}
    for item in _as_list(manifest.get("tasks")):
        if isinstance(item, dict) and item.get("task_id"):
            metas[str(item["task_id"])] = item

    by_key: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for line in results:
        by_key.setdefault((str(line["task_id"]), str(line["model"])), []).append(line)
    rows = [r for r in summary.get("tasks") or [] if isinstance(r, dict)]
    if any(
        key not in {(str(r.get("task_id")), str(r.get("model"))) for r in rows} for key in by_key
    ):
        summary = _summarize(results, manifest)  # stale summary: results it does not cover
        rows = summary["tasks"]

    records = [
        _record(
            row,
            metas.get(str(row.get("task_id")), {}),
            by_key.get((str(row.get("task_id")), str(row.get("model"))), []),
        )
        for row in rows
    ]

    models: list[str] = []
    for spec in [*_as_list(summary.get("models")), *(r.model for r in records)]:
        if isinstance(spec, str) and spec not in models and any(r.model == spec for r in records):
            models.append(spec)
    return RunData(path, manifest, summary, results, records, models)


def _record(row: dict[str, Any], meta: dict[str, Any], lines: list[dict[str, Any]]) -> TaskRecord:
    from trialrun.tasks import SUITE_DEFAULTS

    first = lines[0] if lines else {}
    suite = str(meta.get("suite") or row.get("suite") or first.get("suite") or "golden")
    defaults = SUITE_DEFAULTS.get(suite) or SUITE_DEFAULTS["golden"]
    spec = str(row.get("model"))
    provider, model_id = _split_spec(spec, row.get("provider") or first.get("provider"))

    def pick(key: str, fallback: Any) -> Any:
        for source in (meta, row, first):
            if source.get(key) is not None:
                return source[key]
        return fallback

    return TaskRecord(
        task_id=str(row.get("task_id")),
        model=spec,
        provider=str(provider),
        model_id=model_id,
        suite=suite,
        tier=tier if isinstance(tier := pick("tier", None), str) else None,
        policy=str(pick("policy", defaults.policy)),
        metric=str(pick("metric", defaults.metric)),
        k=_int_or(pick("k", defaults.k), defaults.k),
        gates=_gates_of(meta or first, suite),
        n=int(row.get("n") or 0),
        passed=int(row.get("passed") or 0),
        solved=int(row.get("solved") or 0),
        undetermined=int(row.get("undetermined") or 0),
        infra_errors=int(row.get("infra_errors") or 0),
        pass_k=row.get("pass_k"),
        solve_k=row.get("solve_k"),
        pass_at_k=row.get("pass_at_k"),
        flaky=bool(row.get("flaky")),
        trials=sorted(lines, key=lambda t: int(t.get("trial") or 0)),
    )


def _int_or(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
    )


def _clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """A run.json task entry without wrongly typed values (they fall back to defaults)."""
    out = dict(meta)
    if not (isinstance(out.get("k"), int) and not isinstance(out.get("k"), bool)):
        out.pop("k", None)
    for key in ("tier", "suite", "policy", "metric"):
        if not isinstance(out.get(key), str):
            out.pop(key, None)
    if not isinstance(out.get("gates"), (dict, list)):
        out.pop("gates", None)
    return out


def _summarize(results: list[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    """summary.json missing or stale (an interrupted run): recompute it from the results."""
    from trialrun.metrics import summarize

    metas = [_clean_meta(t) for t in _as_list(manifest.get("tasks")) if isinstance(t, dict)]
    models = [m for m in _as_list(manifest.get("models")) if isinstance(m, str)]
    k = manifest.get("k") if isinstance(manifest.get("k"), int) else None
    return summarize(results, metas, run_id=manifest.get("run_id"), models=models, k=k)
