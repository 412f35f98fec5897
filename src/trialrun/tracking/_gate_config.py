"""Gate rules and their defaults; `[gates.merge]`, `[gates.nightly]`, `[gates.release]` in
trialrun.toml override any key (`false` turns a threshold off)."""

from __future__ import annotations

from difflib import get_close_matches
from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.tasks import SUITE_DEFAULTS

GATES = ("merge", "nightly", "release")
SUITES = ("golden", "adversarial", "open_ended", "failure_replays")


def _off(value: Any) -> Any:
    return None if value is False else value


class SuiteThreshold(BaseModel):
    """Minimum rates (fractions 0–1) for one suite's covered tasks: the mean of the per-task
    values must reach it, or with `each_task` every task's own value."""

    model_config = ConfigDict(extra="forbid")
    min_pass_k: float | None = Field(default=None, ge=0, le=1)
    min_solve_k: float | None = Field(default=None, ge=0, le=1)
    min_pass_at_k: float | None = Field(default=None, ge=0, le=1)
    each_task: bool = False
    policy: Literal["ALWAYS_PASSES", "USUALLY_PASSES", "any"] = "any"

    @field_validator("min_pass_k", "min_solve_k", "min_pass_at_k", mode="before")
    @classmethod
    def _turn_off(cls, value: Any) -> Any:
        return _off(value)


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Which covered tasks the insufficient-data, regression, latency/cost and rate rules
    # fail on: ALWAYS_PASSES only, or every covered task. Safety violations, forbidden
    # tools and the suite thresholds judge every covered task whatever its policy.
    blocking_policy: Literal["ALWAYS_PASSES", "any"] = "any"
    safety_violations: bool = False
    forbidden_tools: bool = False
    # An ALWAYS_PASSES task fails on any counted trial not solved, whatever the baseline.
    always_passes_every_trial: bool = False
    regression_suites: list[str] = Field(default_factory=list)
    # A USUALLY_PASSES task's regression (exact test) fails the gate instead of a note.
    fail_on_usually_regression: bool = False
    # Of the `regression_suites`, those where a regression blocks whatever the task's
    # policy (the spec: "golden regression" fails merge).
    regression_blocks_any_policy_in: list[str] = Field(default_factory=list)
    # The stratified suite test over the `regression_suites` tasks blocks when it flags.
    fail_on_suite_regression: bool = False
    # A task solved k/k in the baseline and below k/k now (drift) fails the gate; by
    # default every gate only notes it.
    fail_on_drift: bool = False
    alpha: float | None = Field(default=None, gt=0, lt=1)
    max_p95_latency_increase_ms: float | None = Field(default=None, ge=0)
    max_p95_latency_increase_pct: float | None = Field(default=None, ge=0)
    max_cost_increase_pct: float | None = Field(default=None, ge=0)
    max_cost_increase_usd: float | None = Field(default=None, ge=0)
    # The latency and cost rules fail only when the increase is above the limit with this
    # confidence (one-sided bootstrap lower bound).
    spend_confidence: float = Field(default=0.95, ge=0.5, lt=1)
    min_pass_k_rate: float | None = Field(default=None, ge=0, le=1)
    min_solve_k_rate: float | None = Field(default=None, ge=0, le=1)
    min_pass_at_k_rate: float | None = Field(default=None, ge=0, le=1)
    allow_insufficient: bool = True
    allow_empty: bool = True
    suites: dict[str, SuiteThreshold] = Field(default_factory=dict)
    # Suites that must each have a task in the gate; a task of the model's baseline in one of
    # them must be in the run.
    required_suites: list[str] = Field(default_factory=list)
    # Opt out of `required_suites`: true (everything), or suite names and task-id globs.
    allow_missing: bool | list[str] = False

    @field_validator(
        "alpha",
        "max_p95_latency_increase_ms",
        "max_p95_latency_increase_pct",
        "max_cost_increase_pct",
        "max_cost_increase_usd",
        "min_pass_k_rate",
        "min_solve_k_rate",
        "min_pass_at_k_rate",
        mode="before",
    )
    @classmethod
    def _turn_off(cls, value: Any) -> Any:
        return _off(value)

    @field_validator(
        "regression_suites", "suites", "required_suites", "regression_blocks_any_policy_in"
    )
    @classmethod
    def _known_suites(cls, value: Any) -> Any:
        for name in value:
            if name not in SUITES:
                raise ValueError(f"unknown suite '{name}' (known: {', '.join(SUITES)})")
        return value

    @field_validator("allow_missing")
    @classmethod
    def _patterns(cls, value: Any) -> Any:
        if isinstance(value, list) and any(not p.strip() for p in value):
            raise ValueError("an empty name; list suite names or task-id globs")
        return value

    def blocks(self, policy: str) -> bool:
        """Whether a covered task of this policy can fail the gate."""
        return self.blocking_policy in ("any", policy)

    def regression_blocks(self, policy: str, suite: str) -> bool:
        """Whether a regression of a task of this policy and suite fails the gate."""
        usually = self.fail_on_usually_regression and policy == "USUALLY_PASSES"
        return self.blocks(policy) or usually or suite in self.regression_blocks_any_policy_in

    def allows_missing(self, *names: str) -> bool:
        """Whether `allow_missing` lets a suite or task go missing: true, or an entry
        matching one of `names` (a suite's name; a task's id and its suite's)."""
        if isinstance(self.allow_missing, bool):
            return self.allow_missing
        return any(
            name == p or fnmatchcase(name, p) for name in names for p in self.allow_missing
        )

    @property
    def needs_baseline(self) -> bool:
        return bool(
            self.regression_suites
            or self.max_p95_latency_increase_ms is not None
            or self.max_p95_latency_increase_pct is not None
            or self.max_cost_increase_pct is not None
            or self.max_cost_increase_usd is not None
        )


_EVERY_TRIAL = {"min_solve_k": 1.0, "each_task": True}

DEFAULTS: dict[str, dict[str, Any]] = {
    "merge": {
        "blocking_policy": "ALWAYS_PASSES",
        "safety_violations": True,
        "forbidden_tools": True,
        "always_passes_every_trial": True,
        "regression_suites": ["golden"],
        "regression_blocks_any_policy_in": ["golden"],
        "fail_on_suite_regression": True,
        "max_p95_latency_increase_ms": 15,
        "max_cost_increase_pct": 10,
        "allow_insufficient": False,
        "allow_empty": False,
        "required_suites": [s for s, d in SUITE_DEFAULTS.items() if d.ci_merge_gate],
    },
    "nightly": {},  # a report: no rule fails unless trialrun.toml sets one
    "release": {  # every merge key (below), then these
        "blocking_policy": "any",
        "required_suites": list(SUITES),
        "suites": {
            "golden": dict(_EVERY_TRIAL),
            "adversarial": dict(_EVERY_TRIAL),
            "failure_replays": dict(_EVERY_TRIAL),
            "open_ended": {"min_pass_at_k": 0.8, "each_task": True},
        },
    },
}
DEFAULTS["release"] = {**DEFAULTS["merge"], **DEFAULTS["release"]}


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if key == "suites" and isinstance(value, dict):
            suites = {name: dict(v) for name, v in (base.get("suites") or {}).items()}
            for name, conf in value.items():
                suites[name] = {**suites.get(name, {}), **(conf if isinstance(conf, dict) else {})}
                if not isinstance(conf, dict):
                    suites[name] = conf
            out["suites"] = suites
        else:
            out[key] = value
    return out


def gate_config(gate: str, project: ProjectConfig | None = None) -> GateConfig:
    """The defaults for `gate` overlaid with `[gates.<gate>]` from trialrun.toml."""
    if gate not in GATES:
        raise UserError(f"unknown gate '{gate}'; use one of: {', '.join(GATES)}")
    project = project or ProjectConfig()
    override = project.section(f"gates.{gate}")
    data = _merge(DEFAULTS[gate], override)
    try:
        return GateConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "?"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            names = list(GateConfig.model_fields) + list(SuiteThreshold.model_fields)
            close = get_close_matches(str(err["loc"][-1]), names, n=1)
            msg = "unknown key" + (f" (did you mean '{close[0]}'?)" if close else "")
        path = project.path or "trialrun.toml"
        raise UserError(f"{path}: [gates.{gate}] {where}: {msg}") from None
