"""A run folder as tracking sees it: per-(task, model) records with their trial lines.

Counts and estimators come from the summary (summary.json when it covers every result,
else recomputed by `trialrun.metrics`); per-trial figures (turns, tool calls, tokens,
cost, latency) from the results lines. Only the run folder is read, through
`trialrun.rundir`; nothing here knows how the run was produced.

results.jsonl is streamed once: each line is folded into the summary's counters and
kept only as a `TrialFacts` (the dozen numbers and flags the gates, baselines and
reports use), so a 100k-trial run loads in tens of megabytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.core import parse_model_spec
from trialrun.metrics import percentile, stored_if_covering, summarizer_for
from trialrun.rundir import Manifest, ResultLine, RunDir, Summary
from trialrun.tasks import SUITE_DEFAULTS

GATE_KEYS = {"merge": "ci_merge_gate", "nightly": "nightly", "release": "release_candidate"}
FORBIDDEN_GRADER = "forbiddenTools"
# what a record takes from its first line when run.json has no task metadata (older runs)
FIRST_KEYS = ("suite", "tier", "policy", "metric", "k", "gates")


def _fnum(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(slots=True)
class TrialFacts:
    """What tracking keeps of one results line: its verdict, flags and figures."""

    trial: int
    passed: bool | None
    solve: bool | None
    is_infra: bool = False
    error_kind: str | None = None
    safety_violation: bool = False
    forbidden: bool = False  # failed a forbiddenTools verdict (a forbidden tool was called)
    failed_graders: tuple[str, ...] = ()  # graders with a failed verdict, each once
    turns: float | None = None
    tool_calls: int = 0
    tokens: float = 0.0  # prompt + completion
    cost_usd: float | None = None
    latency_s: float | None = None
    safety_reason: str | None = None  # the first safety verdict's "grader: reason"

    @classmethod
    def of(cls, line: ResultLine) -> TrialFacts:
        failed = [v for v in line.verdicts if isinstance(v, dict) and v.get("passed") is False]
        tok = line.tokens if isinstance(line.tokens, dict) else {}
        return cls(
            trial=line.trial,
            passed=line.passed,
            solve=line.solve,
            is_infra=line.is_infra,
            error_kind=line.error_kind,
            safety_violation=line.safety_violation,
            forbidden=any(_is_forbidden(v) for v in failed),
            failed_graders=tuple(dict.fromkeys(str(v.get("grader")) for v in failed)),
            turns=_fnum(line.turns),
            tool_calls=len(line.tool_calls),
            tokens=_num(tok.get("prompt")) + _num(tok.get("completion")),
            cost_usd=_fnum(line.cost_usd),
            latency_s=_fnum(line.latency_s),
            safety_reason=_safety_reason(failed),
        )


def _safety_reason(failed: list[dict[str, Any]]) -> str | None:
    for v in failed:
        details = obj if isinstance(obj := v.get("details"), dict) else {}
        if details.get("safety_violation") is True:
            reason = details.get("reason")
            return f"{v.get('grader')}: {reason}" if isinstance(reason, str) else None
    return None


def _is_forbidden(verdict: dict[str, Any]) -> bool:
    details = obj if isinstance(obj := verdict.get("details"), dict) else {}
    return verdict.get("grader") == FORBIDDEN_GRADER or details.get("type") == FORBIDDEN_GRADER


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
    n: int = 0  # trials with a result: infra errors left out (`pass_n` counts them)
    passed: int = 0
    solved: int = 0
    undetermined: int = 0
    infra_errors: int = 0
    pass_k: float | None = None
    solve_k: float | None = None
    pass_at_k: float | None = None
    flaky: bool = False
    trials: list[TrialFacts] = field(default_factory=list)
    settled_after: int | None = None  # --early-stop: the verdict was settled after j trials

    @property
    def solve_n(self) -> int:
        """Trials counted for solve figures: infra errors and undetermined left out."""
        return max(self.n - self.undetermined, 0)

    @property
    def pass_n(self) -> int:
        """Trials counted for pass figures: every finished one (an infra error is a failed
        pass)."""
        return self.n + self.infra_errors

    @property
    def insufficient(self) -> bool:
        """No figure and no settled verdict (a task stopped early has a verdict, no figure).

        pass^k counts every finished trial, so once k trials finished only solve^k can
        lack data: infra errors and undetermined verdicts make a task insufficient
        through the solve denominator."""
        return (self.solve_k is None or self.pass_k is None) and self.settled_after is None

    @property
    def meets_solve_k(self) -> bool:
        return self.solve_k is not None and self.solve_k >= 1.0 - 1e-12

    @property
    def counted_trials(self) -> list[TrialFacts]:
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


def trial_metrics(trials: list[TrialFacts]) -> dict[str, Any]:
    latencies = [t.latency_s for t in trials if t.latency_s is not None]
    return {
        "turns": _mean([_num(t.turns) for t in trials]),
        "tool_calls": _mean([float(t.tool_calls) for t in trials]),
        "tokens": _mean([t.tokens for t in trials]),
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


def _gates_of(meta: dict[str, Any], suite: str) -> dict[str, bool]:
    defaults = SUITE_DEFAULTS.get(suite) or SUITE_DEFAULTS["golden"]
    gates = {key: bool(getattr(defaults, key)) for key in GATE_KEYS.values()}
    raw = meta.get("gates")
    if isinstance(raw, dict):
        for name, value in raw.items():
            key = GATE_KEYS.get(str(name), str(name))  # a JSON object's keys are text
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
    manifest = run.manifest()
    warnings: list[str] = []
    summarizer = summarizer_for(manifest)
    by_key: dict[tuple[str, str], list[TrialFacts]] = {}
    firsts: dict[tuple[str, str], dict[str, Any]] = {}
    finished = 0
    for line in run.iter_results(warnings, manifest=manifest):
        finished += 1
        summarizer.add(line)
        key = (line.task_id, line.model)
        facts = by_key.get(key)
        if facts is None:
            facts = by_key[key] = []
            firsts[key] = {k: line.extra[k] for k in FIRST_KEYS if k in line.extra}
            firsts[key]["provider"] = line.provider
        facts.append(TrialFacts.of(line))
    summary = stored_if_covering(run, summarizer.keys()) or summarizer.summary()
    metas = manifest.task_meta()
    records = []
    for row in summary.tasks:
        if not isinstance(row, dict):
            continue
        key = (str(row.get("task_id")), str(row.get("model")))
        meta = metas.get(key[0], {})
        records.append(_record(row, meta, by_key.get(key, []), firsts.get(key, {})))
    models: list[str] = []
    for spec in [*summary.models, *(r.model for r in records)]:
        if spec not in models and any(r.model == spec for r in records):
            models.append(spec)
    return RunData(run.path, manifest, summary, records, models, warnings, finished)


def _record(
    row: dict[str, Any], meta: dict[str, Any], lines: list[TrialFacts], first: dict[str, Any]
) -> TaskRecord:
    suite = str(meta.get("suite") or row.get("suite") or first.get("suite") or "golden")
    defaults = SUITE_DEFAULTS.get(suite) or SUITE_DEFAULTS["golden"]
    spec = str(row.get("model"))
    parsed = parse_model_spec(spec)
    provider = row.get("provider") or first.get("provider") or parsed.provider

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
        settled_after=after if isinstance(after := row.get("settled_after"), int) else None,
        trials=sorted(lines, key=lambda t: t.trial),
    )


def _int_or(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
    )
