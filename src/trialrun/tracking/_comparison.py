"""A comparison's data: per-task deltas (`TaskDelta`) and the whole `Comparison`.

`to_dict` is the JSON of `trialrun compare --json` and of a gate's comparison.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from trialrun.tracking._spend_samples import SpendSamples
from trialrun.tracking._suite_significance import SuiteTest

DETECT_DROP = 0.20  # the drop the power figure is about (20 points)
DETECT_POWER = 0.80


@dataclass(slots=True)
class Side:
    n: int  # counted for pass: every finished trial (infra errors are failed passes)
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
    # solved k/k in the baseline, below k/k now: a stable task turned flaky, flagged
    # whatever the exact test says (a drop "within noise" can still be drift)
    drift: bool = False

    @property
    def verdict(self) -> str:
        """The label every surface shows: the exact test's, then "drift" when flagged."""
        return f"{self.label} · drift" if self.drift else self.label

    @property
    def dropped(self) -> bool:
        return self.pass_dropped or self.solve_dropped

    @property
    def p_value(self) -> float | None:
        values = [p for p in (self.p_pass, self.p_solve) if p is not None]
        return min(values) if values else None

    def describe(self) -> str:
        """The drop in counts with its p-value (gate messages and reports quote it)."""
        parts = []
        if self.solve_dropped:
            parts.append(
                f"solved {self.before.solved}/{self.before.solve_n} → "
                f"{self.after.solved}/{self.after.solve_n} (p = {_p_text(self.p_solve)})"
            )
        if self.pass_dropped:
            parts.append(
                f"passed {self.before.passed}/{self.before.n} → "
                f"{self.after.passed}/{self.after.n} (p = {_p_text(self.p_pass)})"
            )
        return "; ".join(parts)


def solved_every_trial(side: Side) -> bool:
    """Every counted trial solved (k/k), at least one counted."""
    return side.solve_n > 0 and side.solved == side.solve_n


def is_drift(before: Side, after: Side) -> bool:
    """Solved k/k in the baseline, and a counted trial now not solved."""
    return solved_every_trial(before) and after.solve_n > 0 and after.solved < after.solve_n


def _p_text(value: float | None) -> str:
    """A p-value: two significant digits below 0.01, else two decimals."""
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
    k: int | None  # the run's k (run.json override, else its smallest task k)
    notes: list[str] = field(default_factory=list)
    task_k: list[int] = field(default_factory=list)  # the compared tasks' own k, distinct
    suite_tests: list[SuiteTest] = field(default_factory=list)  # solve, then pass
    # the raw latencies and per-task costs behind the P95 and cost figures (gate intervals)
    spend: SpendSamples | None = None

    @property
    def suite_regression(self) -> list[SuiteTest]:
        return [s for s in self.suite_tests if s.verdict == "regression"]

    @property
    def regressions(self) -> list[TaskDelta]:
        return [t for t in self.tasks if t.label == "regression"]

    @property
    def within_noise(self) -> list[TaskDelta]:
        return [t for t in self.tasks if t.label == "within noise"]

    @property
    def drifts(self) -> list[TaskDelta]:
        return [t for t in self.tasks if t.drift]

    @property
    def suite_shown(self) -> SuiteTest | None:
        """The suite test every surface quotes: the first that flags a regression, else the
        first that dropped, else the solve test ("no drop")."""
        for wanted in ("regression", "within noise", "no drop"):
            for s in self.suite_tests:
                if s.verdict == wanted:
                    return s
        return None

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
        """The change of an aggregate rate in percentage points."""
        b, a = self.before.get(key), self.after.get(key)
        return None if a is None or b is None else (a - b) * 100

    def _bounds(self, which: str) -> list[float] | None:
        """[low, high] of the spend's bootstrap bounds (`latency_bounds_ms` or
        `cost_bounds_pct`) at the shown confidence; None when none can be drawn."""
        found = getattr(self.spend, which)() if self.spend is not None else None
        return None if found is None else [found.low, found.high]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["spend"]
        out["regressions"] = [t.task_id for t in self.regressions]
        out["within_noise"] = [t.task_id for t in self.within_noise]
        out["drift"] = [t.task_id for t in self.drifts]
        out["mean_solve_rate_delta_pp"] = self.pp("mean_solve_rate")
        out["latency_p95_delta_ms"] = self.latency_delta_ms
        out["latency_p95_delta_bounds_ms"] = self._bounds("latency_bounds_ms")
        out["cost_delta_bounds_pct"] = self._bounds("cost_bounds_pct")
        out["cost_delta_pct"] = self.cost_delta_pct
        out["pass_k_delta_pp"] = self.pp("pass_k_rate")
        out["solve_k_delta_pp"] = self.pp("solve_k_rate")
        out["test"] = "fisher-exact-one-sided"
        out["suite_test"] = out.pop("suite_tests")
        out["power"] = {
            "drop": DETECT_DROP,
            "power": DETECT_POWER,
            "alpha": self.alpha,
            "method": "exact Fisher power, bisection",
            "observed_rate": self.observed_rate,
            "trials_per_task": self.trials_needed,
        }
        return out


@dataclass(slots=True)
class OneSided:
    """Models two runs do not share: each is compared with nothing, and said so."""

    only_after: list[str] = field(default_factory=list)  # in the run, not the other
    only_before: list[str] = field(default_factory=list)  # in the other run only

    def __bool__(self) -> bool:
        return bool(self.only_after or self.only_before)


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
