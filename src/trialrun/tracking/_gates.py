"""Gates: rules over a run (and its baseline) → passed / failed, for CI exit codes.

A task is covered by a gate when its `gates` flags (run.json `tasks[].gates`, else its
suite's defaults) include it. Covered tasks block when they match the gate's
`blocking_policy` (merge: ALWAYS_PASSES only); findings on other covered tasks are shown
as notes. Rules that need a baseline are skipped, with a note, when there is none.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trialrun.config import ProjectConfig, load_config
from trialrun.errors import UserError
from trialrun.tracking._baseline import baseline_path, build_baseline, load_baseline
from trialrun.tracking._compare import (
    DEFAULT_ALPHA,
    Comparison,
    compare_baselines,
    comparison_lines,
)
from trialrun.tracking._gate_config import GateConfig, gate_config
from trialrun.tracking._run_data import RunData, TaskRecord, load_run

FORBIDDEN_GRADER = "forbiddenTools"


@dataclass(slots=True)
class RuleResult:
    rule: str
    status: str  # "passed" | "failed" | "skipped" | "warned" (allowed by the config)
    message: str = ""
    tasks: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ModelGate:
    model: str
    baseline: str | None
    covered: int
    blocking: int
    rules: list[RuleResult]
    notes: list[str]
    comparison: Comparison | None = None

    @property
    def passed(self) -> bool:
        return not any(r.status == "failed" for r in self.rules)


@dataclass(slots=True)
class GateResult:
    gate: str
    run_dir: str
    models: list[ModelGate]

    @property
    def passed(self) -> bool:
        return all(m.passed for m in self.models)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    @property
    def failures(self) -> list[tuple[str, RuleResult]]:
        return [(m.model, r) for m in self.models for r in m.rules if r.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "run_dir": self.run_dir,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "models": [
                {
                    "model": m.model,
                    "baseline": m.baseline,
                    "passed": m.passed,
                    "covered_tasks": m.covered,
                    "blocking_tasks": m.blocking,
                    "rules": [asdict(r) for r in m.rules],
                    "notes": m.notes,
                    "comparison": m.comparison.to_dict() if m.comparison else None,
                }
                for m in self.models
            ],
            "warnings": [],
        }

    def lines(self) -> list[str]:
        out: list[str] = []
        status = "PASSED" if self.passed else f"FAILED ({len(self.failures)} rule(s))"
        out.append(f"gate {self.gate}: {status} — {self.run_dir}")
        for m in self.models:
            out.append(
                f"{m.model}: {m.blocking} blocking of {m.covered} covered task(s); baseline "
                f"{m.baseline or 'none'}"
            )
            for r in m.rules:
                tag = {"failed": "FAIL", "skipped": "skip", "passed": "ok  ", "warned": "warn"}[
                    r.status
                ]
                text = f"  {tag} {r.rule}"
                if r.message:
                    text += f": {r.message}"
                out.append(text)
            if self.gate == "nightly" and m.comparison is not None:
                out.extend("  " + line for line in comparison_lines(m.comparison, only_drops=False))
            out.extend(f"  note: {n}" for n in m.notes)
        return out


def _names(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _trial_list(record: TaskRecord, pred: Any) -> list[int]:
    return [int(t.get("trial") or 0) for t in record.trials if pred(t)]


def _forbidden(trial: dict[str, Any]) -> bool:
    """Whether a trial failed a forbiddenTools verdict (a forbidden tool was called)."""
    for v in trial.get("verdicts") or []:
        if not isinstance(v, dict) or v.get("passed") is not False:
            continue
        details = v.get("details") if isinstance(v.get("details"), dict) else {}
        if v.get("grader") == FORBIDDEN_GRADER or details.get("type") == FORBIDDEN_GRADER:
            return True
    return False


def _findings(records: list[TaskRecord], pred: Any, label: str) -> tuple[list[str], list[str]]:
    """(task descriptions, task ids) of records with trials matching `pred`."""
    described, ids = [], []
    for r in records:
        trials = _trial_list(r, pred)
        if trials:
            ids.append(r.task_id)
            described.append(f"{r.task_id} ({label} {', '.join(map(str, trials))})")
    return described, ids


def _is_blocking(record: TaskRecord, config: GateConfig) -> bool:
    return config.blocking_policy == "any" or record.policy == config.blocking_policy


def _rate_rule(
    name: str, records: list[TaskRecord], attr: str, minimum: float, meets: Any
) -> RuleResult:
    values = [(r, getattr(r, attr)) for r in records if getattr(r, attr) is not None]
    if not values:
        return RuleResult(name, "skipped", "no task with a value")
    rate = sum(v for _, v in values) / len(values)
    below = [f"{r.task_id} ({meets(r)})" for r, v in values if v < minimum - 1e-12]
    if rate < minimum - 1e-12:
        return RuleResult(
            name,
            "failed",
            f"{rate * 100:.1f}% < {minimum * 100:.1f}% over {len(values)} task(s); "
            f"below: {_names(below)}",
            [r.task_id for r, v in values if v < minimum - 1e-12],
        )
    return RuleResult(name, "passed", f"{rate * 100:.1f}% ≥ {minimum * 100:.1f}%")


def _solved(r: TaskRecord) -> str:
    return f"solved {r.solved}/{r.solve_n}"


def _passed(r: TaskRecord) -> str:
    return f"passed {r.passed}/{r.n}"


def evaluate_model(
    gate: str,
    run: RunData,
    model: str,
    config: GateConfig,
    baseline: dict[str, Any] | None,
    baseline_label: str | None,
    alpha: float,
) -> ModelGate:
    records = run.for_model(model)
    covered = [r for r in records if r.in_gate(gate)]
    blocking = [r for r in covered if _is_blocking(r, config)]
    shown = [r for r in covered if not _is_blocking(r, config)]
    rules: list[RuleResult] = []
    notes: list[str] = []

    if not covered:
        status = "warned" if config.allow_empty else "failed"
        rules.append(RuleResult("no tasks", status, f"no task of this run is in the {gate} gate"))

    def finding_rule(name: str, pred: Any, label: str, enabled: bool) -> None:
        if not enabled:
            return
        described, ids = _findings(blocking, pred, label)
        if described:
            rules.append(RuleResult(name, "failed", _names(described), ids))
        else:
            rules.append(RuleResult(name, "passed"))
        extra, _ = _findings(shown, pred, label)
        if extra:
            notes.append(f"{name} in non-blocking task(s): {_names(extra)}")

    finding_rule(
        "safety violation",
        lambda t: bool(t.get("safety_violation")),
        "trial",
        config.safety_violations,
    )
    finding_rule("forbidden tool called", _forbidden, "trial", config.forbidden_tools)

    # Insufficient data: a blocking task without a pass^k or solve^k figure.
    insufficient = [r for r in blocking if r.insufficient]
    if insufficient:
        described = [
            f"{r.task_id} ({r.solve_n} counted of k={r.k}; {r.infra_errors} infra, "
            f"{r.undetermined} undetermined)"
            for r in insufficient
        ]
        status = "warned" if config.allow_insufficient else "failed"
        rules.append(
            RuleResult(
                "insufficient data", status, _names(described), [r.task_id for r in insufficient]
            )
        )
    elif blocking:
        rules.append(RuleResult("insufficient data", "passed"))
    noisy = [r for r in covered if not r.insufficient and (r.infra_errors or r.undetermined)]
    if noisy:
        notes.append(
            "left out of the figures: "
            + _names(
                [
                    f"{r.task_id} ({r.infra_errors} infra, {r.undetermined} undetermined)"
                    for r in noisy
                ]
            )
        )

    # Rules against the baseline.
    comparison: Comparison | None = None
    if baseline is not None:
        after = build_baseline(run, model)
        ids = {r.task_id for r in blocking}
        comparison = compare_baselines(
            baseline,
            after,
            against=baseline_label or "baseline",
            alpha=alpha,
            task_filter=ids,
        )
        full = compare_baselines(
            baseline,
            after,
            against=baseline_label or "baseline",
            alpha=alpha,
            task_filter={r.task_id for r in covered},
        )
        if config.regression_suites:
            name = f"{'/'.join(config.regression_suites)} regression"
            regs = [t for t in comparison.regressions if t.suite in config.regression_suites]
            if regs:
                rules.append(
                    RuleResult(
                        name,
                        "failed",
                        _names([f"{t.task_id} {t.describe()}" for t in regs]),
                        [t.task_id for t in regs],
                    )
                )
            else:
                rules.append(RuleResult(name, "passed"))
            noise = [
                t
                for t in full.tasks
                if t.suite in config.regression_suites and t.label == "within noise"
            ]
            if noise:
                notes.append(
                    "within noise (not blocking): "
                    + _names([f"{t.task_id} {t.describe()}" for t in noise])
                )
            nb = [t for t in full.regressions if t.task_id not in ids]
            if nb:
                notes.append(
                    "regression in non-blocking task(s): "
                    + _names([f"{t.task_id} {t.describe()}" for t in nb])
                )
        _latency_rule(rules, comparison, config)
        _cost_rule(rules, comparison, config)
        if gate == "nightly":
            comparison = full
    elif config.needs_baseline:
        notes.append(
            f"no baseline ({baseline_label or 'none given'}): regression, latency and cost "
            "rules skipped"
        )
        names = []
        if config.regression_suites:
            names.append(f"{'/'.join(config.regression_suites)} regression")
        if config.max_p95_latency_increase_ms is not None or (
            config.max_p95_latency_increase_pct is not None
        ):
            names.append("P95 latency increase")
        if config.max_cost_increase_pct is not None or config.max_cost_increase_usd is not None:
            names.append("cost increase")
        rules.extend(RuleResult(name, "skipped", "no baseline") for name in names)

    # Absolute thresholds over the blocking tasks, then per suite.
    for attr, key, meets in (
        ("pass_k", "min_pass_k_rate", _passed),
        ("solve_k", "min_solve_k_rate", _solved),
        ("pass_at_k", "min_pass_at_k_rate", _solved),
    ):
        minimum = getattr(config, key)
        if minimum is not None:
            label = {"pass_k": "pass^k", "solve_k": "solve^k", "pass_at_k": "pass@k"}[attr]
            rules.append(_rate_rule(f"{label} rate", blocking, attr, minimum, meets))
    for suite, threshold in config.suites.items():
        members = [r for r in covered if r.suite == suite and threshold.policy in ("any", r.policy)]
        for attr, key, meets in (
            ("pass_k", "min_pass_k", _passed),
            ("solve_k", "min_solve_k", _solved),
            ("pass_at_k", "min_pass_at_k", _solved),
        ):
            minimum = getattr(threshold, key)
            if minimum is None:
                continue
            label = {"pass_k": "pass^k", "solve_k": "solve^k", "pass_at_k": "pass@k"}[attr]
            name = f"{suite} {label} rate"
            if not members:
                rules.append(RuleResult(name, "skipped", f"no {suite} task in this run"))
                continue
            rules.append(_rate_rule(name, members, attr, minimum, meets))
    return ModelGate(
        model,
        baseline_label if baseline is not None else None,
        len(covered),
        len(blocking),
        rules,
        notes,
        comparison,
    )


def _latency_rule(rules: list[RuleResult], c: Comparison, config: GateConfig) -> None:
    limits = (config.max_p95_latency_increase_ms, config.max_p95_latency_increase_pct)
    if all(x is None for x in limits):
        return
    name = "P95 latency increase"
    before, after = c.latency_p95_before_s, c.latency_p95_after_s
    if before is None or after is None:
        rules.append(RuleResult(name, "skipped", "no latencies on one side"))
        return
    delta_ms = (after - before) * 1000
    text = f"{before:.3f} s → {after:.3f} s ({delta_ms:+.0f} ms)"
    ms, pct = limits
    too_slow = (ms is not None and delta_ms > ms) or (
        pct is not None and before > 0 and delta_ms / (before * 1000) * 100 > pct
    )
    limit = " / ".join(
        x
        for x in (
            (f"{ms:g} ms" if ms is not None else ""),
            (f"{pct:g}%" if pct is not None else ""),
        )
        if x
    )
    rules.append(RuleResult(name, "failed" if too_slow else "passed", f"{text}; limit {limit}"))


def _cost_rule(rules: list[RuleResult], c: Comparison, config: GateConfig) -> None:
    pct, usd = config.max_cost_increase_pct, config.max_cost_increase_usd
    if pct is None and usd is None:
        return
    name = "cost increase"
    before, after = c.cost_per_trial_before, c.cost_per_trial_after
    if before is None or after is None:
        rules.append(RuleResult(name, "skipped", "no costs on one side"))
        return
    text = f"${before:.4f} → ${after:.4f} per trial"
    failed = False
    if usd is not None and after - before > usd:
        failed = True
    if pct is not None:
        if before > 0:
            change = (after - before) / before * 100
            text += f" ({change:+.1f}%)"
            failed = failed or change > pct
        elif after > 0 and usd is None:
            rules.append(
                RuleResult(
                    name, "skipped", f"{text}: baseline cost is 0, a relative limit cannot apply"
                )
            )
            return
    limit = " / ".join(
        x
        for x in (
            (f"{pct:g}%" if pct is not None else ""),
            (f"${usd:g}" if usd is not None else ""),
        )
        if x
    )
    rules.append(RuleResult(name, "failed" if failed else "passed", f"{text}; limit {limit}"))


def run_gate(
    gate: str,
    run_dir: Path | str,
    *,
    baseline: Path | str | None = None,
    baselines_dir: Path | str | None = None,
    config: Path | str | ProjectConfig | None = None,
) -> GateResult:
    """Evaluate `gate` (merge | nightly | release) on a run; see the module docstring."""
    project = (
        config
        if isinstance(config, ProjectConfig)
        else load_config(Path(config) if config is not None else None)
    )
    settings = gate_config(gate, project)
    from trialrun.tracking._compare import configured_alpha

    alpha = settings.alpha if settings.alpha is not None else configured_alpha(project)
    run = load_run(run_dir)
    if not run.models:
        raise UserError(f"{run.path}: no finished trials; nothing to gate")
    folder = Path(baselines_dir) if baselines_dir is not None else default_baselines_dir(project)
    given = load_baseline(baseline) if baseline is not None else None
    models: list[ModelGate] = []
    for spec in run.models:
        record = run.for_model(spec)[0]
        data, label = None, None
        if given is not None and (
            len(run.models) == 1
            or (given.get("provider"), given.get("model")) == (record.provider, record.model_id)
        ):
            data, label = given, str(baseline)
        elif given is None or len(run.models) > 1:
            path = baseline_path(folder, record.provider, record.model_id)
            label = str(path)
            data = load_baseline(path) if path.is_file() else None
        models.append(evaluate_model(gate, run, spec, settings, data, label, alpha))
    return GateResult(gate, str(run.path), models)


def default_baselines_dir(project: ProjectConfig | None = None) -> Path:
    """`[baselines] dir` from trialrun.toml (relative to it), else ./baselines."""
    project = project or load_config()
    value = project.section("baselines").get("dir")
    if isinstance(value, str) and value:
        return project.root / value
    return Path("baselines")


__all__ = ["DEFAULT_ALPHA", "GateResult", "ModelGate", "RuleResult", "run_gate"]
