"""Gemini-Scribe-style JSON tasks (`id` + `userMessage`), mapped onto the same Task.

Problems are reported with Scribe field paths (`vaultAssertions.2.value`), never with the
native names the mapping produces. Regexes (`regex`, `fileMatches`) are JavaScript ones, as
in Scribe: translated to Python's dialect here (`_js_regex`), so graders stay dialect-free.
A task's `rubric` (free text) becomes a `judge` grader over the final answer.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trialrun.core import regex_shape_problem
from trialrun.graders import GraderConfig, regex_value_problem
from trialrun.tasks._grader_items import REGEX_VALUE_KINDS, validate_grader
from trialrun.tasks._issues import Issue, issues_from_validation
from trialrun.tasks._js_regex import JSRegexError, js_flags, js_to_python
from trialrun.tasks._limits import MAX_SECONDS
from trialrun.tasks._model import AgentName, Task, Tier
from trialrun.tasks._native import SCHEMA_KEY, Checked
from trialrun.tasks._problems import FieldPath
from trialrun.tasks._reference import meant_path, scribe_reference

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
    timeoutMs: float = Field(300_000, gt=0, le=MAX_SECONDS * 1000, allow_inf_nan=False)
    rubric: Any = None  # free text for the judge; checked in check_scribe
    agent: AgentName | None = None  # trialrun's own key: the agent under test (a preset)


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

    _add_graders(data, prefix, issues, graders)

    raw_id = data.get("id")
    if stem is not None and isinstance(raw_id, str) and raw_id != stem:
        issues.append(
            ((*prefix, "id"), f"id '{raw_id}' must equal the file name without .json ('{stem}')")
        )
    if shape is not None and not graders and not issues:
        issues.append(
            (
                (*prefix, "vaultAssertions"),
                "no checks: add outputMatchers, vaultAssertions, rubric, "
                "expectedTools, forbiddenTools or toolCallBudget",
            )
        )
    if issues or shape is None:
        return Checked(None, _with_reference(issues, prefix), graders, places)

    native = to_native(shape, [config for _, config in graders])
    try:
        task = Task.model_validate(native)
    except ValidationError as exc:
        found = issues_from_validation(exc, native, Task)
        back = [((*prefix, *_to_scribe_path(p)), m) for p, m in found]
        return Checked(None, _with_reference(back, prefix), graders, places)
    return Checked(task, [], graders, places)


def _add_graders(
    data: dict[str, Any],
    prefix: FieldPath,
    issues: list[Issue],
    graders: list[tuple[FieldPath, GraderConfig]],
) -> None:
    """Scribe's checks as graders: expected/forbidden tools, output matchers, vault
    assertions, the rubric (a judge) and the tool-call budget; each bad one an issue."""

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
            where = (*prefix, key, i)
            item, js_issues = js_matcher(item, where)
            config, found = validate_grader(item, where, allowed=allowed, what=what)
            issues += _first_per_field(js_issues + found)
            if config is not None and not js_issues:
                graders.append((where, config))
    if "rubric" in data:
        rubric = data["rubric"]
        if isinstance(rubric, str) and rubric.strip():
            synth("rubric", {"type": "judge", "name": "rubric", "criteria": rubric})
        else:
            message = f"must be a non-empty text: what the judge checks in the answer ({rubric!r})"
            issues.append(((*prefix, "rubric"), message))
    budget = data.get("toolCallBudget")
    if isinstance(budget, bool):
        issues.append(
            ((*prefix, "toolCallBudget"), f"must be a number of tool calls (got {budget})")
        )
    if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0:
        synth("toolCallBudget", {"type": "toolCallBudget", "max": budget})


def _with_reference(issues: list[Issue], prefix: FieldPath) -> list[Issue]:
    """Each message ends naming the Scribe format's row of its key."""
    keys = ScribeTask.model_fields
    return [
        (p, f"{m} (see {scribe_reference(meant_path(p[len(prefix) :], m), keys)})")
        for p, m in issues
    ]


def js_matcher(item: Any, where: FieldPath) -> tuple[Any, list[Issue]]:
    """A `regex` / `fileMatches` item with its JavaScript patterns and flags in Python's
    dialect, and the problems found (named with the pattern as written in the file).

    A pattern or flag that cannot be translated is replaced by a harmless one in the
    returned item, so the grader's own checks still report the item's other problems.
    """
    if not isinstance(item, dict) or item.get("type") not in REGEX_VALUE_KINDS:
        return item, []
    out, issues = dict(item), []
    flags = item.get("flags", "")
    python_flags = ""
    if not isinstance(flags, str):
        issues.append(((*where, "flags"), f"must be a string of flags, e.g. \"i\" (got {flags!r})"))
        flags = out["flags"] = ""
    else:
        try:
            python_flags = js_flags(flags)
        except JSRegexError as exc:
            issues.append(((*where, "flags"), str(exc)))
            flags = ""
        if "flags" in item:
            out["flags"] = python_flags
    value = item.get("value")
    if isinstance(value, str):
        out["value"], issues = _pattern(value, flags, python_flags, (*where, "value"), issues)
    elif isinstance(value, list):
        out["value"] = list(value)
        for j, pattern in enumerate(value):
            if isinstance(pattern, str):
                out["value"][j], issues = _pattern(
                    pattern, flags, python_flags, (*where, "value", j), issues
                )
    return out, issues


def _pattern(
    pattern: str, js: str, python_flags: str, path: FieldPath, issues: list[Issue]
) -> tuple[str, list[Issue]]:
    shown = repr(pattern) if len(pattern) <= 80 else repr(pattern[:80]) + "…"
    # the shape first (same repeat syntax): translating a huge pattern is itself slow
    problem = regex_shape_problem(pattern)
    translated = ""
    if problem is None:
        try:
            translated = js_to_python(pattern, js)
        except JSRegexError as exc:
            problem = str(exc)
        else:
            problem = regex_value_problem(translated, python_flags)
    if problem is not None:
        return "", [*issues, (path, f"bad regex {shown}: {problem}")]
    return translated, issues


def _first_per_field(issues: list[Issue]) -> list[Issue]:
    """Our own regex problem first wins over the grader's on the same field."""
    seen: set[FieldPath] = set()
    out: list[Issue] = []
    for path, message in issues:
        if path not in seen:
            seen.add(path)
            out.append((path, message))
    return out


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
        "agent": shape.agent,
    }
