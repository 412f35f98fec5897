"""Output graders over the agent's final answer: `contains` and `regex` (any-of values).

The `judge` matcher lives in graders/judge.py.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import StrictBool, ValidationInfo, field_validator

from trialrun.graders._types import GraderConfig, TrialView, grader
from trialrun.graders._values import (
    around,
    as_list,
    check_patterns,
    check_values,
    regex_flags,
    search_bounded,
    snippet,
)


class ContainsConfig(GraderConfig):
    type: Literal["contains"] = "contains"
    value: str | list[str]
    caseSensitive: StrictBool = True

    @field_validator("value")
    @classmethod
    def _values(cls, value: str | list[str]) -> str | list[str]:
        return check_values(value)


class RegexConfig(GraderConfig):
    type: Literal["regex"] = "regex"
    # flags first: `value`'s validator compiles the patterns with them
    flags: str = ""
    value: str | list[str]

    @field_validator("flags")
    @classmethod
    def _flags(cls, flags: str) -> str:
        regex_flags(flags)
        return flags

    @field_validator("value")
    @classmethod
    def _patterns(cls, value: str | list[str], info: ValidationInfo) -> str | list[str]:
        return check_patterns(value, info)


def find_any(text: str, values: list[str], case_sensitive: bool) -> tuple[str | None, int]:
    """The first value found in `text` (any-of) and where, or (None, -1)."""
    hay = text if case_sensitive else text.casefold()
    for value in values:
        at = hay.find(value if case_sensitive else value.casefold())
        if at >= 0:
            return value, at
    return None, -1


def contains_details(
    text: str, values: list[str], case_sensitive: bool
) -> tuple[bool, dict[str, Any]]:
    found, at = find_any(text, values, case_sensitive)
    details: dict[str, Any] = {"expected_any_of": values, "case_sensitive": case_sensitive}
    if found is None:
        details["text"] = snippet(text)
        return False, details
    details["matched"] = found
    details["context"] = around(text, at, at + len(found))
    return True, details


def regex_details(text: str, patterns: list[str], flags: str) -> tuple[bool, dict[str, Any]]:
    details: dict[str, Any] = {"patterns_any_of": patterns, "flags": flags}
    for pattern in patterns:
        match = search_bounded(pattern, flags, text)
        if match:
            details["matched_pattern"] = pattern
            details["match"] = match.group(0)[:400]
            details["context"] = around(text, match.start(), match.end())
            return True, details
    details["text"] = snippet(text)
    return False, details


@grader("contains", ContainsConfig)
def contains(config: ContainsConfig, trial: TrialView) -> tuple[bool, dict[str, Any]]:
    return contains_details(trial.final_text or "", as_list(config.value), config.caseSensitive)


@grader("regex", RegexConfig)
def regex(config: RegexConfig, trial: TrialView) -> tuple[bool, dict[str, Any]]:
    return regex_details(trial.final_text or "", as_list(config.value), config.flags)
