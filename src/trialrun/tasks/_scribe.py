"""Gemini-Scribe-style JSON tasks (`id` + `userMessage`), mapped onto the same Task.

Problems are reported with Scribe field paths (`vaultAssertions.2.value`), never with the
native names the mapping produces.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trialrun.graders import GraderConfig
from trialrun.tasks._grader_items import validate_grader
from trialrun.tasks._issues import Issue, issues_from_validation
from trialrun.tasks._model import Task, Tier
from trialrun.tasks._native import SCHEMA_KEY, Checked
from trialrun.tasks._problems import FieldPath

SCRIBE_FIXTURE_DEST = "eval-scratch"
OUTPUT_MATCHERS = ("contains", "regex", "judge")
VAULT_ASSERTIONS = (
    "fileExists",
    "fileAbsent",
    "fileContains",
    "fileLacks",
    "fileMatches",
    "frontmatterEquals",
    "fileUnchanged",
)


class ScribeSetup(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    path: str
    from_: str = Field(alias="from")


class ScribeTask(BaseModel):
    """The Gemini Scribe task file shape: `id`, `userMessage` and Scribe's own fields."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    description: str
    userMessage: str = Field(min_length=1)
    difficulty: Tier | None = None
    category: str | None = None
    fixture: str | None = None
    contextFiles: list[str] = Field(default_factory=list)
    setup: list[ScribeSetup] = Field(default_factory=list)
    expectedTools: list[str] | None = None
    forbiddenTools: list[str] | None = None
    outputMatchers: list[Any] = Field(default_factory=list)
    vaultAssertions: list[Any] = Field(default_factory=list)
    toolCallBudget: int | None = Field(None, ge=0)
    maxTurns: int = Field(15, ge=1)
    timeoutMs: float = Field(300_000, gt=0)


def is_scribe_shape(data: Any) -> bool:
    return (
        isinstance(data, dict) and "task_id" not in data and ("userMessage" in data or "id" in data)
    )


# native path → Scribe path, for the rare problem the Task model itself finds
_BACK = [
    (("task_id",), ("id",)),
    (("inputs", "prompt"), ("userMessage",)),
    (("inputs", "context_files"), ("contextFiles",)),
    (("tier",), ("difficulty",)),
    (("tags",), ("category",)),
    (("environment", "fixture"), ("fixture",)),
    (("environment", "setup"), ("setup",)),
    (("environment", "budgets", "max_turns"), ("maxTurns",)),
    (("environment", "budgets", "timeout_s"), ("timeoutMs",)),
    (("environment", "budgets", "tool_call_budget"), ("toolCallBudget",)),
]


def _to_scribe_path(path: FieldPath) -> FieldPath:
    for native, scribe in _BACK:
        if path[: len(native)] == native:
            return (*scribe, *path[len(native) :])
    return path


def check_scribe(data: dict[str, Any], prefix: FieldPath = (), stem: str | None = None) -> Checked:
    """Validate a Scribe mapping; `stem` (file name without .json) must equal its `id`."""
    places = {
        "task_id": (*prefix, "id"),
        "fixture": (*prefix, "fixture"),
        "setup": (*prefix, "setup"),
        "faults": (*prefix, "faults"),
    }
    data = {k: v for k, v in data.items() if k != SCHEMA_KEY}
    issues: list[Issue] = []
    graders: list[tuple[FieldPath, GraderConfig]] = []
    shape: ScribeTask | None = None
    try:
        shape = ScribeTask.model_validate(data)
    except ValidationError as exc:
        issues += issues_from_validation(exc, data, ScribeTask, prefix)

    def synth(key: str, item: dict[str, Any]) -> None:
        config, found = validate_grader(item, (*prefix, key))
        issues.extend((path[: len(prefix) + 1], msg) for path, msg in found)
        if config is not None:
            graders.append(((*prefix, key), config))

    for key in ("expectedTools", "forbiddenTools"):
        if isinstance(data.get(key), list):
            synth(key, {"type": key, "tools": data[key]})
    for key, allowed, what in (
        ("outputMatchers", OUTPUT_MATCHERS, "output matcher"),
        ("vaultAssertions", VAULT_ASSERTIONS, "vault assertion"),
    ):
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            config, found = validate_grader(item, (*prefix, key, i), allowed=allowed, what=what)
            issues += found
            if config is not None:
                graders.append(((*prefix, key, i), config))
    budget = data.get("toolCallBudget")
    if isinstance(budget, bool):
        issues.append(
            ((*prefix, "toolCallBudget"), f"must be a number of tool calls (got {budget})")
        )
    if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0:
        synth("toolCallBudget", {"type": "toolCallBudget", "max": budget})

    raw_id = data.get("id")
    if stem is not None and isinstance(raw_id, str) and raw_id != stem:
        issues.append(
            ((*prefix, "id"), f"id '{raw_id}' must equal the file name without .json ('{stem}')")
        )
    if shape is not None and not graders and not issues:
        issues.append(
            (
                (*prefix, "vaultAssertions"),
                "no checks: add outputMatchers, vaultAssertions, "
                "expectedTools, forbiddenTools or toolCallBudget",
            )
        )
    if issues or shape is None:
        return Checked(None, issues, graders, places)

    native = to_native(shape, [config for _, config in graders])
    try:
        task = Task.model_validate(native)
    except ValidationError as exc:
        found = issues_from_validation(exc, native, Task)
        return Checked(
            None, [((*prefix, *_to_scribe_path(p)), m) for p, m in found], graders, places
        )
    return Checked(task, [], graders, places)


def to_native(shape: ScribeTask, graders: list[GraderConfig]) -> dict[str, Any]:
    """The Scribe → native mapping: suite golden, tier = difficulty, tags = [category], …"""
    budgets: dict[str, Any] = {
        "max_turns": shape.maxTurns,
        "timeout_s": shape.timeoutMs / 1000,
    }
    if shape.toolCallBudget is not None:
        budgets["tool_call_budget"] = shape.toolCallBudget
    environment: dict[str, Any] = {
        "fixture": shape.fixture,
        "fixture_dest": SCRIBE_FIXTURE_DEST,
        "setup": [{"path": s.path, "from": s.from_} for s in shape.setup],
        "budgets": budgets,
    }
    return {
        "task_id": shape.id,
        "suite": "golden",
        "description": shape.description,
        "tier": shape.difficulty,
        "tags": [shape.category] if shape.category else [],
        "inputs": {"prompt": shape.userMessage, "context_files": list(shape.contextFiles)},
        "environment": environment,
        "graders": graders,
        "tracked_metrics": ["pass^k", "solve^k"],
    }
