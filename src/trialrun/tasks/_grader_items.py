"""Validate one grader dict where it sits in a file, so problems point at its exact keys."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from pydantic import ValidationError

from trialrun.graders import GRADERS, GraderConfig, regex_value_problem
from trialrun.tasks._families import FAMILIES, route_family
from trialrun.tasks._issues import Issue, issues_from_validation, suggest
from trialrun.tasks._problems import FieldPath

_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
# Grader kinds whose `value` is a regex (or an any-of list of them).
REGEX_VALUE_KINDS = ("regex", "fileMatches")


def validate_grader(
    item: Any,
    prefix: FieldPath,
    *,
    allowed: Collection[str] | None = None,
    what: str = "grader",
    where: str = "",
) -> tuple[GraderConfig | None, list[Issue]]:
    """Parse `item` with its kind's config model; return the config or the issues."""
    if not isinstance(item, dict):
        got = type(item).__name__
        return None, [(prefix, f"a {what} must be a mapping with a 'type' key (got {got})")]
    if "type" not in item:
        known = ", ".join(sorted(allowed) if allowed else GRADERS.names())
        return None, [((*prefix, "type"), f"required key is missing (known types: {known})")]
    kind_name = item["type"]
    if not isinstance(kind_name, str):
        return None, [((*prefix, "type"), f"must be a string (got {kind_name!r})")]
    if allowed is None and kind_name in FAMILIES:
        return _validate_family(item, prefix)
    kind = GRADERS.get(kind_name)
    if allowed is not None and kind_name not in allowed:
        if kind is not None:
            choices = ", ".join(sorted(allowed))
            article = "an" if what[:1] in "aeiou" else "a"
            message = f"'{kind_name}' is not {article} {what}{where} (allowed: {choices})"
        else:
            hint = suggest(kind_name, allowed)
            message = f"unknown {what} type '{kind_name}'" + (
                f"; did you mean '{hint}'?" if hint else f" (allowed: {', '.join(sorted(allowed))})"
            )
        return None, [((*prefix, "type"), message)]
    if kind is None:
        hint = GRADERS.suggest(kind_name) or (
            suggest(kind_name, FAMILIES) if allowed is None else None
        )
        known = ", ".join(GRADERS.names()) + (
            "; suite-spec families: " + ", ".join(FAMILIES) if allowed is None else ""
        )
        did = f"; did you mean '{hint}'?" if hint else f" (known: {known})"
        return None, [((*prefix, "type"), f"unknown {what} type '{kind_name}'{did}")]
    # Our own regex check comes first: it points at the exact list item.
    regex_issues = check_regexes(kind_name, item, prefix)
    try:
        config = kind.config_model.model_validate(item)
    except ValidationError as exc:
        found = issues_from_validation(exc, item, kind.config_model, prefix)
        found = [
            (path, msg)
            for path, msg in found
            if not any(r[: len(path)] == path for r, _ in regex_issues)
        ]
        return None, sorted_issues(regex_issues + found)
    except Exception as exc:  # a config validator that raised something else
        return None, [(prefix, f"{type(exc).__name__}: {exc}")]
    return (None if regex_issues else config), regex_issues


def _validate_family(
    item: dict[str, Any], prefix: FieldPath
) -> tuple[GraderConfig | None, list[Issue]]:
    """A suite-spec family item, validated as the trialrun kind its keys pick; problems
    name the keys as the file spells them (`contains`, not the kind's `value`)."""
    mapped, back, issues = route_family(item, prefix)
    if mapped is None:
        return None, issues
    config, found = validate_grader(mapped, prefix)
    n = len(prefix)
    return config, [
        ((*path[:n], back.get(str(path[n]), path[n]), *path[n + 1 :]) if len(path) > n else path, m)
        for path, m in found
    ]


def sorted_issues(issues: list[Issue]) -> list[Issue]:
    return sorted(issues, key=lambda issue: [str(p) for p in issue[0]])


def _compile(pattern: Any, flags: str, path: FieldPath) -> list[Issue]:
    """A pattern too big to compile safely, or not `re` syntax, is one issue here."""
    if not isinstance(pattern, str):
        return []
    known = "".join(ch for ch in flags or "" if ch in _FLAGS)
    problem = regex_value_problem(pattern, known)
    return [] if problem is None else [(path, f"bad regex {_shown(pattern)}: {problem}")]


def _shown(pattern: str, limit: int = 80) -> str:
    """The pattern as the problem line shows it: a 20,000-character one is cut."""
    return repr(pattern) if len(pattern) <= limit else repr(pattern[:limit]) + "…"


def _bad_flags(flags: Any, path: FieldPath) -> list[Issue]:
    if not isinstance(flags, str):
        return []
    bad = sorted({ch for ch in flags if ch not in _FLAGS})
    if bad:
        return [(path, f"unknown regex flag(s) {''.join(bad)!r}: use any of 'i', 'm', 's'")]
    return []


def check_regexes(kind: str, item: dict[str, Any], prefix: FieldPath) -> list[Issue]:
    """Compile every regex a grader carries, so a bad pattern fails at load, not at grading."""
    issues: list[Issue] = []
    if kind in REGEX_VALUE_KINDS:
        flags = item.get("flags", "")
        issues += _bad_flags(flags, (*prefix, "flags"))
        value = item.get("value")
        if isinstance(value, list):
            for i, pattern in enumerate(value):
                issues += _compile(pattern, flags, (*prefix, "value", i))
        else:
            issues += _compile(value, flags, (*prefix, "value"))
    elif kind == "toolArgs" and isinstance(item.get("args"), dict):
        for param, expected in item["args"].items():
            issues += _expected_regexes(expected, (*prefix, "args", param))
    return issues


def _expected_regexes(expected: Any, path: FieldPath) -> list[Issue]:
    if isinstance(expected, list):
        out: list[Issue] = []
        for i, option in enumerate(expected):
            out += _expected_regexes(option, (*path, i))
        return out
    if isinstance(expected, dict) and "regex" in expected and set(expected) <= {"regex", "flags"}:
        flags = expected.get("flags", "")
        return _bad_flags(flags, (*path, "flags")) + _compile(
            expected["regex"], flags if isinstance(flags, str) else "", (*path, "regex")
        )
    return []


def tool_names_in(
    config: GraderConfig, prefix: FieldPath, raw: Any = None
) -> list[tuple[FieldPath, str]]:
    """The tool names a grader refers to, each with its field path (`raw`: the item as
    written, whose list key may be a family's, e.g. `expected_tools`)."""
    found: list[tuple[FieldPath, str]] = []
    if config.type in ("expectedTools", "forbiddenTools", "toolOrder"):
        # A Scribe `expectedTools: [...]` list is the grader itself: no `tools` key.
        key = "tools"
        if isinstance(raw, dict) and "tools" not in raw:
            key = next((k for k, v in raw.items() if k != "type" and isinstance(v, list)), key)
        base = prefix if prefix and isinstance(prefix[-1], str) else (*prefix, key)
        for i, name in enumerate(getattr(config, "tools", None) or []):
            if isinstance(name, str):
                found.append(((*base, i), name))
    elif config.type == "toolArgs":
        name = getattr(config, "tool", None)
        if isinstance(name, str):
            found.append(((*prefix, "tool"), name))
    return found
