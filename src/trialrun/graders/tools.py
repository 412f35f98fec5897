"""Tool-call graders: expectedTools, forbiddenTools, toolOrder, toolArgs, toolCallBudget.

Every call the agent made counts, including calls that returned an error (the agent
still chose that tool); details list the failed ones separately.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field, field_validator

from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader
from trialrun.graders._values import compile_regex, search_bounded, typed_equal


def _called(trial: TrialView) -> list[str]:
    return [c.name for c in trial.tool_calls]


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


class ToolsConfig(GraderConfig):
    tools: list[str]


class ExpectedToolsConfig(ToolsConfig):
    type: Literal["expectedTools"] = "expectedTools"


class ForbiddenToolsConfig(ToolsConfig):
    type: Literal["forbiddenTools"] = "forbiddenTools"


class ToolOrderConfig(ToolsConfig):
    type: Literal["toolOrder"] = "toolOrder"


@grader("expectedTools", ExpectedToolsConfig)
def expected_tools(config: ExpectedToolsConfig, trial: TrialView) -> Verdict:
    called = _unique(_called(trial))
    missing = [t for t in _unique(config.tools) if t not in called]
    failed = _unique([c.name for c in trial.tool_calls if not c.ok])
    details: dict[str, Any] = {"expected": config.tools, "called": called, "missing": missing}
    if failed:
        details["failed_calls"] = failed
    return Verdict(config.label, not missing, details)


@grader("forbiddenTools", ForbiddenToolsConfig)
def forbidden_tools(config: ForbiddenToolsConfig, trial: TrialView) -> Verdict:
    called = _unique(_called(trial))
    hit = [t for t in called if t in set(config.tools)]
    details = {"forbidden": config.tools, "called": called, "forbidden_called": hit}
    return Verdict(config.label, not hit, details)


@grader("toolOrder", ToolOrderConfig)
def tool_order(config: ToolOrderConfig, trial: TrialView) -> Verdict:
    called = _called(trial)
    i = 0
    for name in called:
        if i < len(config.tools) and name == config.tools[i]:
            i += 1
    details: dict[str, Any] = {"expected_order": config.tools, "called": called}
    if i < len(config.tools):
        details["matched"] = config.tools[:i]
        details["missing_from"] = config.tools[i]
    return Verdict(config.label, i == len(config.tools), details)


# --- toolArgs ---


def _is_regex(expected: Any) -> bool:
    if not isinstance(expected, dict):
        return False
    return "regex" in expected and set(expected) <= {"regex", "flags"}


def _is_equals(expected: Any) -> bool:
    return isinstance(expected, dict) and set(expected) == {"equals"}


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _check_expected(param: str, expected: Any) -> None:
    if _is_regex(expected):
        if not isinstance(expected["regex"], str):
            raise ValueError(f"args.{param}.regex must be a string")
        compile_regex(expected["regex"], str(expected.get("flags") or ""))
    elif isinstance(expected, list):
        if not expected:
            raise ValueError(f"args.{param}: an any-of list must not be empty")
        for item in expected:
            _check_expected(param, item)


def arg_matches(actual: Any, expected: Any) -> bool:
    """EXPECTED: scalar/mapping exact (typed), list any-of, {regex, flags?}, {equals}."""
    if _is_regex(expected):
        flags = str(expected.get("flags") or "")
        return search_bounded(expected["regex"], flags, _as_text(actual)) is not None
    if _is_equals(expected):
        return typed_equal(actual, expected["equals"])
    if isinstance(expected, list):
        return any(arg_matches(actual, e) for e in expected)
    return typed_equal(actual, expected)


class ToolArgsConfig(GraderConfig):
    type: Literal["toolArgs"] = "toolArgs"
    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("args")
    @classmethod
    def _valid_patterns(cls, value: dict[str, Any]) -> dict[str, Any]:
        for param, expected in value.items():
            _check_expected(param, expected)
        return value


@grader("toolArgs", ToolArgsConfig)
def tool_args(config: ToolArgsConfig, trial: TrialView) -> Verdict:
    calls = [c for c in trial.tool_calls if c.name == config.tool]
    details: dict[str, Any] = {"tool": config.tool, "expected_args": config.args}
    if not calls:
        details["called"] = _unique(_called(trial))
        details["reason"] = f"'{config.tool}' was never called"
        return Verdict(config.label, False, details)
    tried: list[dict[str, Any]] = []
    for call in calls:
        mismatched = [
            p
            for p, exp in config.args.items()
            if p not in call.arguments or not arg_matches(call.arguments[p], exp)
        ]
        if not mismatched:
            details["matching_call"] = call.arguments
            return Verdict(config.label, True, details)
        tried.append({"arguments": call.arguments, "mismatched": mismatched})
    details["calls"] = tried[:10]
    details["reason"] = f"no call of '{config.tool}' matched every expected argument"
    return Verdict(config.label, False, details)


class ToolCallBudgetConfig(GraderConfig):
    type: Literal["toolCallBudget"] = "toolCallBudget"
    max: int = Field(ge=0)


@grader("toolCallBudget", ToolCallBudgetConfig)
def tool_call_budget(config: ToolCallBudgetConfig, trial: TrialView) -> Verdict:
    n = len(trial.tool_calls)
    details = {"max": config.max, "tool_calls": n, "called": _called(trial)[:50]}
    return Verdict(config.label, n <= config.max, details)
