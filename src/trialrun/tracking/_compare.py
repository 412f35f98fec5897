"""Compare a run with a baseline (or another run): regressions told apart from noise.

Both sides become baseline-shaped dicts (a run is converted with `build_baseline`), so a
blessed file, a Scribe file and another run directory compare alike. A task whose passed
or solved fraction dropped is a **regression** when the one-sided Fisher exact test on its
counts gives p ≤ alpha, else **within noise**.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.metrics import percentile
from trialrun.tracking._baseline import (
    aggregate_of,
    baseline_path,
    build_baseline,
    load_baseline,
)
from trialrun.tracking._run_data import RunData, load_run
from trialrun.tracking._stats import fisher_one_sided, trials_for_drop

DEFAULT_ALPHA = 0.05
DETECT_DROP = 0.20
DETECT_POWER = 0.80


@dataclass(slots=True)
class Side:
    n: int
    passed: int
    solved: int
    solve_n: int
    pass_k: float | None
    solve_k: float | None

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.n if self.n else None

    @property
    def solve_rate(self) -> float | None:
        return self.solved / self.solve_n if self.solve_n else None


@dataclass(slots=True)
class TaskDelta:
    task_id: str
    suite: str
    tier: str | None
    policy: str
    before: Side
    after: Side
    pass_dropped: bool
    solve_dropped: bool
    p_pass: float | None
    p_solve: float | None
    label: str  # "regression" | "within noise" | "improved" | "unchanged"
    trials_needed: int | None = None

    @property
    def dropped(self) -> bool:
        return self.pass_dropped or self.solve_dropped

    @property
    def p_value(self) -> float | None:
        values = [p for p in (self.p_pass, self.p_solve) if p is not None]
        return min(values) if values else None

    def describe(self) -> str:
        parts = []
        if self.solve_dropped:
            parts.append(
                f"solved {self.before.solved}/{self.before.solve_n} → "
                f"{self.after.solved}/{self.after.solve_n} (p = {_p(self.p_solve)})"
            )
        if self.pass_dropped:
            parts.append(
                f"passed {self.before.passed}/{self.before.n} → "
                f"{self.after.passed}/{self.after.n} (p = {_p(self.p_pass)})"
            )
        return "; ".join(parts)


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2g}" if value < 0.01 else f"{value:.2f}"


@dataclass(slots=True)
class Comparison:
    model: str
    provider: str
    model_id: str
    against: str  # the baseline file or run directory compared with
    against_run_id: str | None
    alpha: float
    tasks: list[TaskDelta]
    missing_tasks: list[str]
    new_tasks: list[str]
    before: dict[str, Any]  # aggregate over the common tasks
    after: dict[str, Any]
    latency_p95_before_s: float | None
    latency_p95_after_s: float | None
    cost_per_trial_before: float | None
    cost_per_trial_after: float | None
    trials_needed: int | None
    observed_rate: float | None
    k: int | None
    notes: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[TaskDelta]:
        return [t for t in self.tasks if t.label == "regression"]

    @property
    def within_noise(self) -> list[TaskDelta]:
        return [t for t in self.tasks if t.label == "within noise"]

    @property
    def latency_delta_ms(self) -> float | None:
        if self.latency_p95_before_s is None or self.latency_p95_after_s is None:
            return None
        return (self.latency_p95_after_s - self.latency_p95_before_s) * 1000

    @property
    def cost_delta_pct(self) -> float | None:
        before, after = self.cost_per_trial_before, self.cost_per_trial_after
        if before is None or after is None or before <= 0:
            return None
        return (after - before) / before * 100

    def pp(self, key: str) -> float | None:
        b, a = self.before.get(key), self.after.get(key)
        return None if a is None or b is None else (a - b) * 100

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["regressions"] = [t.task_id for t in self.regressions]
        out["within_noise"] = [t.task_id for t in self.within_noise]
        out["latency_p95_delta_ms"] = self.latency_delta_ms
        out["cost_delta_pct"] = self.cost_delta_pct
        out["pass_k_delta_pp"] = self.pp("pass_k_rate")
        out["solve_k_delta_pp"] = self.pp("solve_k_rate")
        out["test"] = "fisher-exact-one-sided"
        out["power"] = {
            "drop": DETECT_DROP,
            "power": DETECT_POWER,
            "alpha": self.alpha,
            "method": "exact Fisher power, bisection",
            "observed_rate": self.observed_rate,
            "trials_per_task": self.trials_needed,
        }
        return out


def _side(task: dict[str, Any]) -> Side:
    n = int(task.get("n") or 0)
    return Side(
        n=n,
        passed=int(task.get("passed") or 0),
        solved=int(task.get("solved") or 0),
        solve_n=max(n - int(task.get("undetermined") or 0), 0),
        pass_k=task.get("pass_k"),
        solve_k=task.get("solve_k"),
    )


def _task_delta(before_t: dict[str, Any], after_t: dict[str, Any], alpha: float) -> TaskDelta:
    b, a = _side(before_t), _side(after_t)
    pass_dropped = b.pass_rate is not None and a.pass_rate is not None and a.pass_rate < b.pass_rate
    solve_dropped = (
        b.solve_rate is not None and a.solve_rate is not None and a.solve_rate < b.solve_rate
    )
    p_pass = fisher_one_sided(b.passed, b.n, a.passed, a.n) if pass_dropped else None
    p_solve = fisher_one_sided(b.solved, b.solve_n, a.solved, a.solve_n) if solve_dropped else None
    if pass_dropped or solve_dropped:
        ps = [p for p in (p_pass, p_solve) if p is not None]
        label = "regression" if min(ps) <= alpha else "within noise"
    elif (a.solve_rate or 0) > (b.solve_rate or 0) or (a.pass_rate or 0) > (b.pass_rate or 0):
        label = "improved"
    else:
        label = "unchanged"
    needed = None
    if label in ("regression", "within noise"):
        rate = b.solve_rate if solve_dropped else b.pass_rate
        if rate is not None:
            needed = trials_for_drop(rate, DETECT_DROP, DETECT_POWER, alpha)
    return TaskDelta(
        task_id=str(after_t["task_id"]),
        suite=str(after_t.get("suite") or before_t.get("suite") or "golden"),
        tier=after_t.get("tier") or before_t.get("tier"),
        policy=str(after_t.get("policy") or before_t.get("policy") or "ALWAYS_PASSES"),
        before=b,
        after=a,
        pass_dropped=pass_dropped,
        solve_dropped=solve_dropped,
        p_pass=p_pass,
        p_solve=p_solve,
        label=label,
        trials_needed=needed,
    )


def _pooled(tasks: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """P95 latency over the pooled trial latencies, and mean cost per trial."""
    latencies: list[float] = []
    fallback: list[float] = []
    cost, trials = 0.0, 0
    for t in tasks:
        m = t.get("metrics") or {}
        if m.get("latencies_s"):
            latencies.extend(float(x) for x in m["latencies_s"])
        elif m.get("latency_p95_s") is not None:
            fallback.append(float(m["latency_p95_s"]))
        count = int(m.get("trials") or t.get("n") or 0)
        if m.get("cost_usd") is not None:
            cost += float(m["cost_usd"]) * count
            trials += count
    p95 = percentile(latencies, 95) if latencies else (max(fallback) if fallback else None)
    return p95, (cost / trials if trials else None)


def compare_baselines(
    before: dict[str, Any],
    after: dict[str, Any],
    *,
    against: str,
    alpha: float = DEFAULT_ALPHA,
    task_filter: set[str] | None = None,
) -> Comparison:
    """Compare two baseline-shaped dicts (after = the current run)."""
    b_tasks = {t["task_id"]: t for t in before.get("tasks") or []}
    a_tasks = {t["task_id"]: t for t in after.get("tasks") or []}
    if task_filter is not None:
        b_tasks = {k: v for k, v in b_tasks.items() if k in task_filter or k not in a_tasks}
        a_tasks = {k: v for k, v in a_tasks.items() if k in task_filter}
    common = [tid for tid in a_tasks if tid in b_tasks]
    deltas = [_task_delta(b_tasks[tid], a_tasks[tid], alpha) for tid in sorted(common)]
    b_common = [b_tasks[t] for t in common]
    a_common = [a_tasks[t] for t in common]
    lat_b, cost_b = _pooled(b_common)
    lat_a, cost_a = _pooled(a_common)
    agg_b = aggregate_of(b_common)
    observed = agg_b.get("mean_solve_rate")
    notes: list[str] = []
    if before.get("forced"):
        notes.append(f"the baseline was blessed with --force: {before.get('reason')}")
    if not common:
        notes.append("no task in common with the baseline")
    return Comparison(
        model=str(after.get("spec") or f"{after.get('provider')}:{after.get('model')}"),
        provider=str(after.get("provider")),
        model_id=str(after.get("model")),
        against=against,
        against_run_id=before.get("run_id"),
        alpha=alpha,
        tasks=deltas,
        missing_tasks=sorted(t for t in b_tasks if t not in a_tasks),
        new_tasks=sorted(t for t in a_tasks if t not in b_tasks),
        before=agg_b,
        after=aggregate_of(a_common),
        latency_p95_before_s=lat_b,
        latency_p95_after_s=lat_a,
        cost_per_trial_before=cost_b,
        cost_per_trial_after=cost_a,
        trials_needed=(
            trials_for_drop(observed, DETECT_DROP, DETECT_POWER, alpha)
            if observed is not None
            else None
        ),
        observed_rate=observed,
        k=after.get("k"),
        notes=notes,
    )


def _as_run(run: RunData | Path | str) -> RunData:
    return run if isinstance(run, RunData) else load_run(run)


def _pick_model(run: RunData, provider: str | None, model_id: str | None) -> str:
    from trialrun.models import parse_model_spec

    for spec in run.models:
        parsed = parse_model_spec(spec)
        if parsed.provider == provider and parsed.model_id == model_id:
            return spec
    if len(run.models) == 1:
        return run.models[0]
    raise UserError(
        f"{run.path}: no model {provider}:{model_id} in this run (it has "
        f"{', '.join(run.models)}); pass --baseline for one of them"
    )


def compare(
    run_dir: RunData | Path | str,
    against: dict[str, Any] | RunData | Path | str,
    *,
    model: str | None = None,
    alpha: float = DEFAULT_ALPHA,
) -> Comparison:
    """Compare one model of a run with a baseline (file or dict) or with another run dir.

    `model` picks the run's model (spec text); by default the one matching the baseline's
    (provider, model), or the run's only model.
    """
    run = _as_run(run_dir)
    if isinstance(against, dict):
        before, label = against, str(against.get("source", {}).get("file", "baseline"))
    elif isinstance(against, RunData) or Path(against).is_dir():
        other = _as_run(against)
        if model is None:
            if len(run.models) != 1:
                raise UserError(
                    f"{run.path}: several models ({', '.join(run.models)}); pick one to compare"
                )
            model = run.models[0]
        if model in other.models:
            other_model = model
        elif len(other.models) == 1:
            other_model = other.models[0]
        else:
            raise UserError(f"{other.path}: no results for model '{model}' to compare with")
        before, label = build_baseline(other, other_model), str(other.path)
    else:
        before, label = load_baseline(against), str(against)
    spec = model or _pick_model(run, before.get("provider"), before.get("model"))
    after = build_baseline(run, spec)
    return compare_baselines(before, after, against=label, alpha=alpha)


@dataclass(slots=True)
class BaselineMatch:
    """One model of a run with the baseline looked for (comparison None when missing)."""

    model: str
    baseline_path: Path
    comparison: Comparison | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "baseline": str(self.baseline_path),
            "found": self.comparison is not None,
            "comparison": self.comparison.to_dict() if self.comparison else None,
        }


def compare_with_baselines(
    run_dir: RunData | Path | str,
    baselines_dir: Path | str = "baselines",
    *,
    alpha: float | None = None,
) -> list[BaselineMatch]:
    """Compare each model of the run with `<baselines_dir>/<provider>-<slug>.json`, if any."""
    run = _as_run(run_dir)
    if alpha is None:
        alpha = configured_alpha()
    out: list[BaselineMatch] = []
    for spec in run.models:
        record = run.for_model(spec)[0]
        path = baseline_path(baselines_dir, record.provider, record.model_id)
        comparison = None
        if path.is_file():
            comparison = compare(run, load_baseline(path), model=spec, alpha=alpha)
            comparison.against = str(path)
        out.append(BaselineMatch(spec, path, comparison))
    return out


def compare_runs(
    run_dir: RunData | Path | str, other_dir: RunData | Path | str, *, alpha: float | None = None
) -> list[Comparison]:
    """Compare each model of a run with the same model in another run (or the only ones)."""
    run, other = _as_run(run_dir), _as_run(other_dir)
    alpha = configured_alpha() if alpha is None else alpha
    if len(run.models) == 1 and len(other.models) == 1:
        return [compare(run, other, model=run.models[0], alpha=alpha)]
    pairs = [m for m in run.models if m in other.models]
    if not pairs:
        raise UserError(
            f"{other.path}: no model in common with {run.path} "
            f"({', '.join(other.models)} vs {', '.join(run.models)})"
        )
    return [compare(run, other, model=m, alpha=alpha) for m in pairs]


def configured_alpha(config: Any = None) -> float:
    """`[compare] alpha` from trialrun.toml (default 0.05)."""
    from trialrun.config import load_config

    cfg = config or load_config()
    value = cfg.section("compare").get("alpha", DEFAULT_ALPHA)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        where = cfg.path or "trialrun.toml"
        raise UserError(f"{where}: [compare] alpha must be a number in (0, 1), got {value!r}")
    return float(value)


# --- rendering ---------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _pp(value: float | None) -> str:
    return "" if value is None else f" ({value:+.1f} pp)"


def comparison_lines(c: Comparison, *, only_drops: bool = True) -> list[str]:
    """Plain-text lines of one comparison (regressions-only unless only_drops=False)."""
    lines = [
        f"{c.model} vs {c.against}" + (f" (run {c.against_run_id})" if c.against_run_id else "")
    ]
    lines.append(
        f"  pass^k {_pct(c.before.get('pass_k_rate'))} → {_pct(c.after.get('pass_k_rate'))}"
        f"{_pp(c.pp('pass_k_rate'))}; solve^k {_pct(c.before.get('solve_k_rate'))} → "
        f"{_pct(c.after.get('solve_k_rate'))}{_pp(c.pp('solve_k_rate'))}"
        f"  [{len(c.tasks)} common task(s)]"
    )
    if c.latency_p95_before_s is not None and c.latency_p95_after_s is not None:
        lines.append(
            f"  P95 latency {c.latency_p95_before_s:.2f} s → {c.latency_p95_after_s:.2f} s "
            f"({c.latency_delta_ms:+.0f} ms)"
        )
    if c.cost_per_trial_before is not None and c.cost_per_trial_after is not None:
        delta = c.cost_delta_pct
        lines.append(
            f"  cost/trial ${c.cost_per_trial_before:.4f} → ${c.cost_per_trial_after:.4f}"
            + (f" ({delta:+.1f}%)" if delta is not None else "")
        )
    for t in c.tasks:
        if t.dropped:
            tag = "REGRESSION  " if t.label == "regression" else "within noise"
            lines.append(f"  {tag} {t.task_id}: {t.describe()}")
        elif not only_drops and t.label == "improved":
            lines.append(
                f"  improved     {t.task_id}: solved {t.before.solved}/{t.before.solve_n} → "
                f"{t.after.solved}/{t.after.solve_n}"
            )
    if not any(t.dropped for t in c.tasks):
        lines.append("  no task dropped")
    if c.missing_tasks:
        lines.append(f"  missing (in baseline, not run): {', '.join(c.missing_tasks)}")
    if c.new_tasks:
        lines.append(f"  new (not in baseline): {', '.join(c.new_tasks)}")
    if c.observed_rate is not None:
        need = (
            f"{c.trials_needed} trials per task"
            if c.trials_needed
            else "more trials than is practical (or the rate is below 20%)"
        )
        lines.append(
            f"  power: detecting a 20-point drop at the observed solve rate "
            f"{c.observed_rate * 100:.0f}% with 80% power (one-sided Fisher, α = {c.alpha:g}) "
            f"needs {need}" + (f"; this run has k = {c.k}" if c.k else "")
        )
    lines.extend(f"  note: {note}" for note in c.notes)
    return lines


def render_terminal(
    matches: list[BaselineMatch] | list[Comparison] | Comparison,
    console: Any = None,
    *,
    only_drops: bool = True,
) -> None:
    """Print the regressions-only summary (what `trialrun run` shows after a run)."""
    from rich.console import Console
    from rich.markup import escape

    console = console or Console(highlight=False)
    items = matches if isinstance(matches, list) else [matches]
    for item in items:
        if isinstance(item, BaselineMatch):
            if item.comparison is None:
                console.print(
                    f"{escape(item.model)}: no baseline at {escape(str(item.baseline_path))} "
                    "(bless a run with `trialrun bless RUN_DIR` to create it)",
                    soft_wrap=True,
                )
                continue
            comparison = item.comparison
        else:
            comparison = item
        for line in comparison_lines(comparison, only_drops=only_drops):
            style = "bold red" if "REGRESSION" in line else None
            console.print(escape(line), style=style, soft_wrap=True)


def render_markdown(comparisons: list[Comparison]) -> str:
    """A Markdown section: aggregate deltas and the dropped tasks, labelled."""
    out: list[str] = []
    for c in comparisons:
        out.append(f"#### {c.model} vs `{c.against}`\n")
        out.append("| | before | after | Δ |\n| --- | --- | --- | --- |")
        for key, label in (("pass_k_rate", "pass^k"), ("solve_k_rate", "solve^k")):
            delta = c.pp(key)
            out.append(
                f"| {label} | {_pct(c.before.get(key))} | {_pct(c.after.get(key))} | "
                f"{'' if delta is None else f'{delta:+.1f} pp'} |"
            )
        if c.latency_delta_ms is not None:
            out.append(
                f"| P95 latency | {c.latency_p95_before_s:.2f} s | {c.latency_p95_after_s:.2f} s"
                f" | {c.latency_delta_ms:+.0f} ms |"
            )
        if c.cost_per_trial_before is not None and c.cost_per_trial_after is not None:
            delta = c.cost_delta_pct
            out.append(
                f"| cost/trial | ${c.cost_per_trial_before:.4f} | ${c.cost_per_trial_after:.4f}"
                f" | {'' if delta is None else f'{delta:+.1f}%'} |"
            )
        out.append("")
        dropped = [t for t in c.tasks if t.dropped]
        if dropped:
            out.append("| task | change | verdict |\n| --- | --- | --- |")
            for t in dropped:
                verdict = "**regression**" if t.label == "regression" else "within noise"
                out.append(f"| `{t.task_id}` | {t.describe()} | {verdict} |")
        else:
            out.append("No task dropped.")
        if c.missing_tasks:
            out.append(f"\nMissing tasks: {', '.join(f'`{t}`' for t in c.missing_tasks)}")
        if c.new_tasks:
            out.append(f"\nNew tasks: {', '.join(f'`{t}`' for t in c.new_tasks)}")
        out.append("")
    return "\n".join(out)


def comparisons_json(matches: list[BaselineMatch]) -> str:
    return json.dumps({"comparisons": [m.to_dict() for m in matches]}, indent=2)
