"""The Task model (pydantic v2): the task file keys documented in the README.

Validation happens here, at the edge; after loading, the run reads plain attributes.
Suite defaults are filled in after validation, so `task.trials.k`, `task.trials.metric`,
`task.environment.budgets.max_turns`, `task.policy` and `task.gates` are always set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from trialrun.graders import GraderConfig, parse_grader
from trialrun.tasks._suites import SUITE_DEFAULTS, Metric, Policy, Suite

TrackedMetric = Literal[
    "pass^k", "solve^k", "pass@k", "latency_p95", "cost_usd", "tokens", "turns", "tool_calls"
]
Tier = Literal["T1", "T2", "T3", "T4"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatTurn(_Strict):
    role: Literal["system", "user", "assistant"]
    content: str


class Inputs(_Strict):
    prompt: str = Field(min_length=1)
    context_files: list[str] = Field(default_factory=list)
    messages: list[ChatTurn] = Field(default_factory=list, description="prior chat turns")


class Budgets(_Strict):
    max_turns: int | None = Field(None, ge=1, description="model calls per trial")
    tool_call_budget: int | None = Field(None, ge=0, description="more tool calls: not solved")
    timeout_s: float | None = Field(None, gt=0)
    max_tokens: int | None = Field(None, ge=1)
    max_cost_usd: float | None = Field(None, ge=0)


class Fault(_Strict):
    """Fault injection: make a tool fail (on every call, or only on call number `on_call`)."""

    tool: str
    error: str = "injected fault"
    on_call: int | None = Field(None, ge=1)


class SetupFile(_Strict):
    """An extra file seeded into the workspace: `from` is relative to the fixtures/ folder."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    path: str
    from_: str = Field(alias="from")


class Environment(_Strict):
    sandbox: Literal["workspace", "none"] = "workspace"
    fixture: str | None = None
    reset: bool = True
    budgets: Budgets = Field(default_factory=Budgets)
    faults: list[Fault] = Field(default_factory=list)
    # Extensions (optional; see "Task file extensions" in the README):
    tools: list[str | dict[str, Any]] = Field(
        default_factory=lambda: ["vault"],
        description="tool packs: names, or {pack: options} mappings",
    )
    fixture_dest: str = Field("", description="folder inside the workspace the fixture goes to")
    setup: list[SetupFile] = Field(default_factory=list)


class Trials(_Strict):
    k: int | None = Field(None, ge=1)
    metric: Metric | None = None


class Gates(_Strict):
    ci_merge_gate: bool | None = None
    nightly: bool | None = None
    release_candidate: bool | None = None


class Task(_Strict):
    task_id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9._\-/]+$")
    suite: Suite
    description: str
    inputs: Inputs
    graders: list[GraderConfig] = Field(min_length=1)
    tracked_metrics: list[TrackedMetric] = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)
    tier: Tier | None = None
    policy: Policy | None = None
    environment: Environment = Field(default_factory=Environment)
    trials: Trials = Field(default_factory=Trials)
    gates: Gates = Field(default_factory=Gates)

    # Where the task came from (set by the loaders; not part of the file format).
    _source: Path | None = PrivateAttr(default=None)
    _source_format: str = PrivateAttr(default="native")
    _fixture_path: Path | None = PrivateAttr(default=None)
    _fixtures_root: Path | None = PrivateAttr(default=None)

    @field_validator("graders", mode="before")
    @classmethod
    def _parse_graders(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [parse_grader(item) if isinstance(item, dict) else item for item in value]

    @model_validator(mode="after")
    def _fill_suite_defaults(self) -> Task:
        d = SUITE_DEFAULTS[self.suite]
        if self.trials.k is None:
            self.trials.k = d.k
        if self.trials.metric is None:
            self.trials.metric = d.metric
        if self.environment.budgets.max_turns is None:
            self.environment.budgets.max_turns = d.max_turns
        if self.policy is None:
            self.policy = d.policy
        for gate in ("ci_merge_gate", "nightly", "release_candidate"):
            if getattr(self.gates, gate) is None:
                setattr(self.gates, gate, getattr(d, gate))
        return self

    # --- provenance, set by loaders ---
    @property
    def source(self) -> Path | None:
        return self._source

    @property
    def source_format(self) -> str:
        return self._source_format

    @property
    def fixture_path(self) -> Path | None:
        """The resolved fixture folder (`fixtures/NAME` by the task file or its parent)."""
        return self._fixture_path

    @property
    def fixtures_root(self) -> Path | None:
        """The `fixtures/` folder the fixture was found in (base for `setup[].from`)."""
        return self._fixtures_root

    def set_provenance(
        self,
        source: Path | None,
        source_format: str = "native",
        fixture_path: Path | None = None,
        fixtures_root: Path | None = None,
    ) -> None:
        self._source = source
        self._source_format = source_format
        self._fixture_path = fixture_path
        self._fixtures_root = fixtures_root

    @property
    def k(self) -> int:
        assert self.trials.k is not None
        return self.trials.k

    @property
    def metric(self) -> str:
        assert self.trials.metric is not None
        return self.trials.metric

    def in_gate(self, gate: str) -> bool:
        """Whether the task's `gates` (or its suite's defaults) include `gate`."""
        key = {"merge": "ci_merge_gate", "release": "release_candidate"}.get(gate, gate)
        return bool(getattr(self.gates, key))
