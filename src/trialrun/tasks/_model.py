"""The Task model (pydantic v2): the task file keys documented in the README.

Validation happens here, at the edge; after loading, the run reads plain attributes.
Suite defaults are filled in after validation, so `task.trials.k`, `task.trials.metric`,
`task.environment.budgets.max_turns`, `task.policy` and `task.gates` are always set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from trialrun.graders import GraderConfig, parse_grader
from trialrun.metrics import METRIC_ALIASES, TRACKED_METRICS, canonical_metric
from trialrun.tasks._environment import (
    BUDGET_ALIASES,
    SANDBOXES,
    Budgets,
    Environment,
    Fault,
    Reset,
    SetupFile,
    Strict,
)
from trialrun.tasks._families import FAMILIES, family_to_kind
from trialrun.tasks._issues import suggest
from trialrun.tasks._limits import MAX_K, TASK_ID_PATTERN, task_id_problem
from trialrun.tasks._suites import SUITE_DEFAULTS, Metric, Policy, Suite

__all__ = [
    "AgentName",
    "BUDGET_ALIASES",
    "SANDBOXES",
    "Budgets",
    "ChatTurn",
    "Environment",
    "Fault",
    "Gates",
    "Inputs",
    "Reset",
    "SetupFile",
    "Task",
    "Tier",
    "TrackedMetric",
    "Trials",
]

Tier = Literal["T1", "T2", "T3", "T4"]


def _metric(name: str) -> str:
    canonical = canonical_metric(name)
    if canonical is None:
        hint = suggest(name, [*TRACKED_METRICS, *METRIC_ALIASES])
        did = f"; did you mean '{hint}'?" if hint else f" (known: {', '.join(TRACKED_METRICS)})"
        raise ValueError(f"unknown tracked metric '{name}'{did}")
    return canonical


TrackedMetric = Annotated[
    str,
    AfterValidator(_metric),
    WithJsonSchema(
        {
            "anyOf": [
                *({"const": name, "description": what} for name, what in TRACKED_METRICS.items()),
                *(
                    {"const": alias, "description": f"another spelling of {name}"}
                    for alias, name in METRIC_ALIASES.items()
                ),
            ]
        }
    ),
]


class ChatTurn(Strict):
    role: Literal["system", "user", "assistant"]
    content: str


class SimulatedUser(Strict):
    """A simulated user for a multi-turn task: after each answer of the agent it replies in
    character, until its reply holds `stop` or it has replied `max_turns` times (then the
    trial is not passed). `model`: a model spec (an LLM or `scripted:FILE`, a relative path
    taken from the task file's folder); default: the model under test. `opens`: the user
    speaks first, answering `prompt` (then the agent's greeting, which the agent never
    sees), as in τ-bench."""

    persona: str = Field(min_length=1, description="who the user is")
    scenario: str = Field(min_length=1, description="what the user wants and knows")
    stop: str = Field("###DONE###", min_length=1, description="the user's end-of-chat marker")
    max_turns: Annotated[int, Field(strict=True, ge=1, le=100)] = 6
    model: str | None = Field(None, min_length=1, description="model spec of the user")
    opens: StrictBool = Field(
        False,
        description="the user writes the first message (to `prompt`, the agent's greeting)",
    )


class Inputs(BaseModel):
    """What the agent is given. `prompt` is the user message every agent gets (the built-in
    loop sends it; `--agent` functions get it as `task_input.prompt`, `--agent-cmd` as
    `{prompt}`); any other key is kept as it is, in `extra`, for your agent."""

    model_config = ConfigDict(extra="allow")

    prompt: str = Field(min_length=1, description="the user message trialrun sends the agent")
    context_files: list[str] = Field(default_factory=list)
    messages: list[ChatTurn] = Field(default_factory=list, description="prior chat turns")
    user: SimulatedUser | None = Field(None, description="a simulated user (multi-turn tasks)")

    @property
    def extra(self) -> dict[str, Any]:
        """The inputs beyond prompt, context_files, messages and user (the suite spec allows
        any)."""
        return dict(self.model_extra or {})


class Trials(Strict):
    k: Annotated[int, Field(strict=True, ge=1, le=MAX_K)] | None = None
    metric: Metric | None = None


class Gates(Strict):
    # strict: `nightly: "yes"` is refused, not read as true
    ci_merge_gate: StrictBool | None = None
    nightly: StrictBool | None = None
    release_candidate: StrictBool | None = None


def _task_id(value: str) -> str:
    if problem := task_id_problem(value):
        raise ValueError(problem)
    return value


def _agent_name(value: str) -> str:
    """The shape of an `agent:` value; the names the run knows are checked by the loader
    (`load_tasks(..., agents=...)`), since the presets live above this package."""
    if value != value.strip() or not value or any(ch.isspace() for ch in value):
        raise ValueError(
            f"{value!r} is not an agent name: give a preset (e.g. gemini-cli) or "
            "package.module:function, without spaces"
        )
    return value


AgentName = Annotated[
    str,
    AfterValidator(_agent_name),
    WithJsonSchema(
        {
            "type": "string",
            "description": "the agent under test for this task: a preset (gemini-cli, "
            "claude-code, codex) or package.module:function; --agent/--agent-cmd override "
            "it, it overrides [run] agent in trialrun.toml",
        }
    ),
]


class Task(Strict):
    task_id: Annotated[
        str,
        AfterValidator(_task_id),
        WithJsonSchema({"type": "string", "pattern": TASK_ID_PATTERN, "maxLength": 128}),
    ]
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
    agent: AgentName | None = None

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
        return [parse_grader(_as_kind(item)) if isinstance(item, dict) else item for item in value]

    @field_validator("tracked_metrics")
    @classmethod
    def _unique_metrics(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))  # `cost` and `cost_usd` are one metric

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


def _as_kind(item: dict[str, Any]) -> dict[str, Any]:
    """A suite-spec family item (`state_check`, …) as its trialrun grader kind."""
    return family_to_kind(item) if item.get("type") in FAMILIES else item
