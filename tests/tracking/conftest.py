"""Build real run directories (run.json, results.jsonl, summary.json) in tmp_path.

summary.json is produced by trialrun.metrics.summarize from the constructed results lines,
exactly as the runner does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from trialrun.metrics import summarize
from trialrun.rundir import ResultLine
from trialrun.tasks import SUITE_DEFAULTS


@dataclass
class TaskSpec:
    """One task × one model: `solved` of `n` trials solved (the rest failed)."""

    task_id: str
    n: int = 3
    solved: int | None = None  # default: all n
    passed: int | None = None  # default: n (failures are wrong answers, not crashes)
    suite: str = "golden"
    tier: str | None = "T1"
    # default: the suite's, raised to the trials written (a run holds trials 0 to k-1 only)
    k: int | None = None
    policy: str | None = None
    metric: str | None = None
    gates: dict[str, bool] | None = None
    infra: int = 0  # extra infra-error trials
    undetermined: int = 0  # extra undetermined trials (judge could not run)
    latency_s: float = 1.0
    cost_usd: float = 0.001
    latencies_s: list[float] | None = None  # per trial (the i-th trial's), else latency_s
    costs_usd: list[float] | None = None  # per trial, else cost_usd
    safety_violation_trials: list[int] = field(default_factory=list)
    forbidden_trials: list[int] = field(default_factory=list)
    failed_grader: str = "fileContains"
    failed_verdicts: int = 1  # failing verdicts of `failed_grader` in each unsolved trial
    tracked_metrics: list[str] | None = None  # run.json tasks[].tracked_metrics (None: absent)


def _meta(spec: TaskSpec) -> dict[str, Any]:
    d = SUITE_DEFAULTS[spec.suite]
    gates = {
        "ci_merge_gate": d.ci_merge_gate,
        "nightly": d.nightly,
        "release_candidate": d.release_candidate,
    }
    gates.update(spec.gates or {})
    meta: dict[str, Any] = {
        "task_id": spec.task_id,
        "suite": spec.suite,
        "tier": spec.tier,
        "tags": [],
        "policy": spec.policy or d.policy,
        "k": spec.k or max(d.k, spec.n + spec.infra + spec.undetermined),
        "metric": spec.metric or d.metric,
        "gates": gates,
    }
    if spec.tracked_metrics is not None:
        meta["tracked_metrics"] = list(spec.tracked_metrics)
    return meta


def _lines(spec: TaskSpec, model: str) -> list[dict[str, Any]]:
    meta = _meta(spec)
    solved = spec.n if spec.solved is None else spec.solved
    passed = spec.n if spec.passed is None else spec.passed
    provider = model.partition(":")[0]
    out: list[dict[str, Any]] = []
    total = spec.n + spec.infra + spec.undetermined
    for i in range(total):
        kind = "normal" if i < spec.n else ("infra" if i < spec.n + spec.infra else "undet")
        ok_pass = i < passed
        ok_solve = ok_pass and i < solved
        verdicts = [{"grader": "expectedTools", "passed": True, "details": {}}]
        if kind == "normal":
            verdicts.extend(
                {
                    "grader": spec.failed_grader,
                    "passed": ok_solve,
                    "details": {} if ok_solve else {"reason": "text not found"},
                }
                for _ in range(1 if ok_solve else spec.failed_verdicts)
            )
        if i in spec.forbidden_trials:
            verdicts.append(
                {
                    "grader": "forbiddenTools",
                    "passed": False,
                    "details": {"called": ["delete_file"]},
                }
            )
            ok_solve = False
        line: dict[str, Any] = {
            "task_id": spec.task_id,
            "model": model,
            "provider": provider,
            "trial": i,
            "pass": ok_pass,
            "solve": ok_solve,
            "error": None if ok_pass else {"kind": "timeout", "message": "too slow"},
            "verdicts": verdicts,
            "tool_calls": [{"name": "read_file", "arguments": {"path": "a.md"}, "ok": True}],
            "turns": 2,
            "tokens": {"prompt": 100, "cached": 0, "completion": 20},
            "cost_usd": spec.costs_usd[i] if spec.costs_usd else spec.cost_usd,
            "latency_s": spec.latencies_s[i] if spec.latencies_s else spec.latency_s,
            "safety_violation": i in spec.safety_violation_trials,
            "transcript": f"transcripts/x/{spec.task_id}-{i}.json",
            "suite": meta["suite"],
            "tier": meta["tier"],
            "tags": [],
            "policy": meta["policy"],
            "metric": meta["metric"],
            "k": meta["k"],
            "final_text": "done",
        }
        if kind == "infra":
            line.update(
                {
                    "pass": None,
                    "solve": None,
                    "verdicts": [],
                    "error": {"kind": "infra", "message": "provider unreachable"},
                }
            )
        elif kind == "undet":
            line.update(
                {
                    "pass": True,
                    "solve": None,
                    "verdicts": [
                        {"grader": "judge", "passed": None, "details": {"error": "no judge"}}
                    ],
                }
            )
        out.append(line)
    return out


@dataclass
class RunBuilder:
    root: Path
    count: int = 0

    def __call__(
        self,
        tasks: list[TaskSpec] | dict[str, list[TaskSpec]],
        *,
        model: str = "gemini:gemini-2.5-flash",
        name: str | None = None,
        k: int | None = None,
        git_sha: str | None = "abc1234def",
        summary: bool = True,
    ) -> Path:
        self.count += 1
        per_model = tasks if isinstance(tasks, dict) else {model: tasks}
        run_id = name or f"2026-01-0{self.count}T10-00-00-run{self.count}"
        path = self.root / "results" / run_id
        path.mkdir(parents=True)
        metas: dict[str, dict[str, Any]] = {}
        lines: list[dict[str, Any]] = []
        for m, specs in per_model.items():
            for spec in specs:
                metas.setdefault(spec.task_id, _meta(spec))
                lines.extend(_lines(spec, m))
        models = list(per_model)
        manifest = {
            "run_id": run_id,
            "started_at": "2026-01-01T10:00:00Z",
            "argv": ["trialrun", "run"],
            "task_files": [],
            "models": models,
            "k": k,
            "git_sha": git_sha,
            "trialrun_version": "0.1.0",
            "python_version": "3.11",
            "tasks": list(metas.values()),
        }
        (path / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
        with open(path / "results.jsonl", "w", encoding="utf-8") as handle:
            for line in lines:
                handle.write(json.dumps(line) + "\n")
        if summary:
            records = [ResultLine.from_json(line) for line in lines]
            data = summarize(records, list(metas.values()), run_id=run_id, models=models, k=k)
            (path / "summary.json").write_text(json.dumps(data.to_json()), encoding="utf-8")
        return path


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    return RunBuilder(tmp_path)


@pytest.fixture
def T() -> type[TaskSpec]:
    return TaskSpec


def scribe_baseline(
    model: str,
    provider: str,
    run_id: str,
    git_sha: str,
    tasks: list[tuple[str, str, int, int, int]],
) -> dict[str, Any]:
    """A Gemini-Scribe baseline: tasks as (id, difficulty, n_runs, passed, solved)."""
    out = []
    for tid, tier, n, passed, solved in tasks:
        runs = [
            {
                "id": tid,
                "passed": i < passed,
                "solved": i < solved,
                "response_text": "x",
                "metrics": {
                    "turns": 3,
                    "tool_calls": 2,
                    "prompt_tokens": 1000,
                    "cached_tokens": None,
                    "output_tokens": 100,
                    "cost_usd": 0,
                    "loop_fires": 0,
                    "duration_ms": 2000 + 100 * i,
                    "tool_list": ["read_file"],
                },
                "errors": [],
                "solve_details": {"matchers_pass": i < solved},
            }
            for i in range(n)
        ]
        out.append(
            {
                "id": tid,
                "difficulty": tier,
                "category": "edit",
                "n_runs": n,
                "passed_count": passed,
                "solved_count": solved,
                "pass_k": passed == n,
                "solve_k": solved == n,
                "flaky": 0 < solved < n,
                "metrics": {"turns": 3, "duration_ms": 2100},
                "runs": runs,
            }
        )
    return {
        "run_id": run_id,
        "git_sha": git_sha,
        "model": model,
        "provider": provider,
        "tasks": out,
        "aggregate": {"pass_rate": 93.3, "solve_rate": 55.5},
    }


@pytest.fixture
def scribe() -> Callable[..., dict[str, Any]]:
    return scribe_baseline
