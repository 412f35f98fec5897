"""A task's `environment`: sandbox, fixture and reset, budgets, faults, tools and setup.

Both trialrun's names and the suite spec's load: `reset` may be `true` or
`{mode: fresh, from: FIXTURE}` (a fresh workspace per trial; `keep` is refused, since
pass^k needs independent trials), and `max_steps`, `max_tool_calls`, `max_latency_s` are
the spec's names for `max_turns`, `tool_call_budget`, `timeout_s`. Counts are strict
integers with a maximum each (see `_limits`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from trialrun.tasks._issues import suggest
from trialrun.tasks._limits import (
    MAX_COST_USD,
    MAX_SECONDS,
    MAX_TOKENS,
    MAX_TOOL_CALLS,
    MAX_TURNS,
)
from trialrun.tasks._paths import (
    FIXTURES_PATH_PATTERN,
    WORKSPACE_PATH_PATTERN,
    fixtures_path_problem,
    workspace_path_problem,
)
from trialrun.tools import TOOL_PACKS, tool_pack_problem


class Strict(BaseModel):
    """Unknown keys are errors (with did-you-mean)."""

    model_config = ConfigDict(extra="forbid")


# `environment.sandbox` values that run; one place, so a new sandbox is one entry.
SANDBOXES: tuple[str, ...] = ("workspace", "none", "bwrap")

# Counts: strict integers (a boolean is not 1) with a documented maximum each.
Turns = Annotated[int, Field(strict=True, ge=1, le=MAX_TURNS)]
ToolCalls = Annotated[int, Field(strict=True, ge=0, le=MAX_TOOL_CALLS)]
Seconds = Annotated[float, Field(strict=True, gt=0, le=MAX_SECONDS, allow_inf_nan=False)]


# suite spec name → trialrun name; both spellings load, but never with different values
BUDGET_ALIASES = {
    "max_steps": "max_turns",
    "max_tool_calls": "tool_call_budget",
    "max_latency_s": "timeout_s",
}


class Budgets(Strict):
    max_turns: Turns | None = Field(None, description="model calls per trial")
    tool_call_budget: ToolCalls | None = Field(None, description="more tool calls: not solved")
    timeout_s: Seconds | None = None
    max_tokens: Annotated[int, Field(strict=True, ge=1, le=MAX_TOKENS)] | None = None
    max_cost_usd: (
        Annotated[float, Field(strict=True, ge=0, le=MAX_COST_USD, allow_inf_nan=False)] | None
    ) = None
    # The suite spec's names for the same budgets (folded into trialrun's on load).
    max_steps: Turns | None = Field(None, exclude=True, description="the spec's max_turns")
    max_tool_calls: ToolCalls | None = Field(
        None, exclude=True, description="the spec's tool_call_budget"
    )
    max_latency_s: Seconds | None = Field(None, exclude=True, description="the spec's timeout_s")

    @model_validator(mode="after")
    def _fold_aliases(self) -> Budgets:
        for spec, ours in BUDGET_ALIASES.items():
            theirs = getattr(self, spec)
            mine = getattr(self, ours)
            if theirs is None:
                continue
            if mine is not None and mine != theirs:
                raise ValueError(
                    f"{spec} ({theirs:g}) and {ours} ({mine:g}) are the same budget with "
                    "different values; keep one"
                )
            setattr(self, ours, theirs)
        return self


class Fault(Strict):
    """Fault injection: make a tool fail (on every call, or only on call number `on_call`)."""

    tool: str
    error: str = "injected fault"
    on_call: Annotated[int, Field(strict=True, ge=1, le=MAX_TOOL_CALLS)] | None = None


class SetupFile(Strict):
    """An extra file seeded into the workspace: `from` is relative to the fixtures/ folder."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    path: str
    from_: str = Field(alias="from")


def _fixture_name(name: str | None) -> str | None:
    if name is not None and (problem := fixtures_path_problem(name, "fixture")):
        raise ValueError(problem)
    return name


FixtureName = Annotated[
    str | None,
    AfterValidator(_fixture_name),
    WithJsonSchema(
        {"anyOf": [{"type": "string", "pattern": FIXTURES_PATH_PATTERN}, {"type": "null"}]}
    ),
]


def _tool_pack_entry(entry: str | dict[str, Any]) -> str | dict[str, Any]:
    """A pack name, or `{pack: options}`: known packs with options they accept, checked
    here so a misspelt pack or option fails at load, not in the middle of a run."""
    packs = {entry: None} if isinstance(entry, str) else entry
    if not packs:
        raise ValueError("an empty mapping names no tool pack; write a pack name, e.g. vault")
    for name, options in packs.items():
        if problem := tool_pack_problem(name, options):
            raise ValueError(problem)
    return entry


ToolPackEntry = Annotated[str | dict[str, Any], AfterValidator(_tool_pack_entry)]


def _known_packs(schema: dict[str, Any]) -> None:
    """In the schema, the packs registered where `trialrun schema` runs (the loader's rule;
    each pack's options are checked by the pack itself, at load)."""
    names = TOOL_PACKS.names()
    schema["items"] = {
        "anyOf": [
            {"type": "string", "enum": names},
            {
                "type": "object",
                "minProperties": 1,
                "propertyNames": {"enum": names},
                "additionalProperties": {"type": ["object", "null"]},
            },
        ]
    }


class Reset(Strict):
    """The suite spec's `reset`: `fresh` (a new workspace per trial, from fixture `from`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    # `keep` parses (for a clear refusal) but the schema offers only what runs
    mode: Literal["fresh", "keep"] = Field("fresh", json_schema_extra={"enum": ["fresh"]})
    from_: FixtureName = Field(None, alias="from", description="the fixture (= fixture)")


_KEEP = (
    "reset {what} would share one workspace between trials, but pass^k needs independent "
    "trials: use reset {{mode: fresh}} (or true)"
)


def _only_true(schema: dict[str, Any]) -> None:
    """In the schema, `reset` may be `true`, not any boolean (`false` is refused)."""
    for option in schema.get("anyOf", []):
        if option.get("type") == "boolean":
            option.pop("type")
            option["const"] = True


def _default_tools() -> list[str | dict[str, Any]]:
    return ["vault"]


class Environment(Strict):
    sandbox: Annotated[str, WithJsonSchema({"enum": list(SANDBOXES), "default": "workspace"})] = (
        "workspace"
    )
    fixture: FixtureName = None
    reset: StrictBool | Reset = Field(
        True,
        description="true or {mode: fresh, from: FIXTURE}: a fresh workspace per trial",
        json_schema_extra=lambda schema: _only_true(schema),
    )
    budgets: Budgets = Field(default_factory=Budgets)
    faults: list[Fault] = Field(default_factory=list)
    # Extensions (optional; see "Task file extensions" in the README):
    tools: list[ToolPackEntry] = Field(
        default_factory=_default_tools,
        description="tool packs: names, or {pack: options} mappings",
        json_schema_extra=lambda schema: _known_packs(schema),
    )
    fixture_dest: str = Field(
        "",
        description="folder inside the workspace the fixture goes to",
        json_schema_extra={"pattern": WORKSPACE_PATH_PATTERN},
    )
    setup: list[SetupFile] = Field(default_factory=list)

    def tool_packs(self) -> list[tuple[str, dict[str, Any]]]:
        """Each tool pack `tools` names, with its options (`{}` when it gives none)."""
        packs: list[tuple[str, dict[str, Any]]] = []
        for entry in self.tools:
            named = {entry: None} if isinstance(entry, str) else entry
            packs.extend((name, options if isinstance(options, dict) else {})
                         for name, options in named.items())
        return packs

    @field_validator("sandbox")
    @classmethod
    def _known_sandbox(cls, value: str) -> str:
        if value not in SANDBOXES:
            hint = suggest(value, SANDBOXES)
            did = f"; did you mean '{hint}'?" if hint else ""
            raise ValueError(
                f"sandbox {value!r} is not supported (supported: {', '.join(SANDBOXES)}){did}"
            )
        return value

    @field_validator("reset")
    @classmethod
    def _fresh_only(cls, value: bool | Reset, info: ValidationInfo) -> bool | Reset:
        if value is False:
            raise ValueError(_KEEP.format(what="false"))
        if not isinstance(value, Reset):
            return value
        if value.mode == "keep":
            raise ValueError(_KEEP.format(what="mode 'keep'"))
        fixture = info.data.get("fixture")
        if value.from_ is not None and fixture is not None and fixture != value.from_:
            raise ValueError(
                f"reset.from {value.from_!r} and fixture {fixture!r} name different fixtures; "
                "keep one"
            )
        return value

    @field_validator("fixture_dest")
    @classmethod
    def _inside_workspace(cls, value: str) -> str:
        if problem := workspace_path_problem(value, "fixture_dest", allow_root=True):
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _reset_from(self) -> Environment:
        if isinstance(self.reset, Reset) and self.reset.from_ is not None:
            self.fixture = self.reset.from_  # the spec's name for the fixture
        return self
