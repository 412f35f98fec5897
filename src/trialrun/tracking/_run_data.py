"""A run folder as tracking sees it: per-(task, model) records with their trial lines.

Counts and estimators come from the summary (summary.json when it covers every result,
else recomputed by `trialrun.metrics`); per-trial figures (turns, tool calls, tokens,
cost, latency) from the results lines. Only the run folder is read, through
`trialrun.rundir`; nothing here knows how the run was produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.core import parse_model_spec
from trialrun.metrics import current_summary, percentile
from trialrun.rundir import Manifest, ResultLine, RunDir, Summary
from trialrun.tasks import SUITE_DEFAULTS

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
    trials: list[ResultLine] = field(default_factory=list)

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
    def counted_trials(self) -> list[ResultLine]:
        return [t for t in self.trials if not t.is_infra]

    def in_gate(self, gate: str) -> bool:
        return bool(self.gates.get(GATE_KEYS.get(gate, gate), False))

    def metrics(self) -> dict[str, Any]:
        """Per-trial means (turns, tool calls, tokens, cost) and latency percentiles."""
        return trial_metrics(self.counted_trials)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def trial_metrics(trials: list[ResultLine]) -> dict[str, Any]:
    latencies = [_num(t.latency_s) for t in trials if t.latency_s is not None]
    tokens = [_num((t.tokens or {}).get("prompt")) + _num((t.tokens or {}).get("completion"))
              for t in trials]
    return {
        "turns": _mean([_num(t.turns) for t in trials]),
        "tool_calls": _mean([float(len(t.tool_calls)) for t in trials]),
        "tokens": _mean(tokens),
        "cost_usd": _mean([_num(t.cost_usd) for t in trials]),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
        "latencies_s": [round(x, 6) for x in latencies],
        "trials": len(trials),
    }


@dataclass(slots=True)
class RunData:
    path: Path
    manifest: Manifest
    summary: Summary
    results: list[ResultLine]
    records: list[TaskRecord]
    models: list[str]
    warnings: list[str] = field(default_factory=list)  # what the reader skipped (a torn line)

    @property
    def run_id(self) -> str:
        return str(self.manifest.run_id or self.summary.run_id or self.path.name)

    @property
    def git_sha(self) -> str | None:
        return self.manifest.git_sha

    def for_model(self, model: str) -> list[TaskRecord]:
        return [r for r in self.records if r.model == model]


def _gates_of(meta: dict[str, Any], suite: str) -> dict[str, bool]:
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


def load_run(run_dir: Path | str) -> RunData:
    """Read a run folder through `RunDir.read`, the one reader every command shares.

    A missing or damaged run.json or results line is the same one-line UserError that
    `summarize` and `show` give; a torn last line is skipped and named in `warnings`.
    """
    run = RunDir.open(run_dir)
    contents = run.read()
    manifest, results = contents.manifest, contents.results
    summary = current_summary(run, results, manifest)
    metas = manifest.task_meta()
    by_key: dict[tuple[str, str], list[ResultLine]] = {}
    for line in results:
        by_key.setdefault((line.task_id, line.model), []).append(line)
    records = [
        _record(
            row,
            metas.get(str(row.get("task_id")), {}),
            by_key.get((str(row.get("task_id")), str(row.get("model"))), []),
        )
        for row in summary.tasks
        if isinstance(row, dict)
    ]
    models: list[str] = []
    for spec in [*summary.models, *(r.model for r in records)]:
        if spec not in models and any(r.model == spec for r in records):
            models.append(spec)
    return RunData(run.path, manifest, summary, results, records, models, contents.warnings)


def _record(row: dict[str, Any], meta: dict[str, Any], lines: list[ResultLine]) -> TaskRecord:
    first = lines[0].extra if lines else {}
    suite = str(meta.get("suite") or row.get("suite") or first.get("suite") or "golden")
    defaults = SUITE_DEFAULTS.get(suite) or SUITE_DEFAULTS["golden"]
    spec = str(row.get("model"))
    parsed = parse_model_spec(spec)
    provider = row.get("provider") or (lines[0].provider if lines else None) or parsed.provider

    def pick(key: str, fallback: Any) -> Any:
        for source in (meta, row, first):
            if source.get(key) is not None:
                return source[key]
        return fallback

    return TaskRecord(
        task_id=str(row.get("task_id")),
        model=spec,
        provider=str(provider),
        model_id=parsed.model_id,
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
        trials=sorted(lines, key=lambda t: t.trial),
    )


def _int_or(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
    )
