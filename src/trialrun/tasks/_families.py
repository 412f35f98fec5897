"""The suite spec's grader families, mapped onto trialrun's grader kinds by their keys.

`deterministic_tests` and `static_analysis` run a command (`command`), `llm_rubric` is
`llmRubric`, and `state_check` / `trajectory` pick a file or tool grader by the one key
that says what is checked: `{type: state_check, path: a.md, contains: x}` is
`{type: fileContains, path: a.md, value: x}`. One table (`ROUTES`) drives the loader and
the JSON schema, so both accept exactly the same items.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from trialrun.graders import GRADERS
from trialrun.tasks._issues import Issue, suggest
from trialrun.tasks._problems import FieldPath

_ANY = object()


@dataclass(frozen=True)
class Route:
    """One way a family item becomes a grader: `kind`, picked when `selector` is present
    (and equals `when`, if set); `renames` maps the family's keys to the kind's."""

    kind: str
    selector: str | None = None
    renames: dict[str, str] = field(default_factory=dict)
    when: Any = _ANY

    def keys(self) -> set[str]:
        """The keys an item of this route may hold, spelled as in the family."""
        grader = GRADERS.get(self.kind)
        assert grader is not None  # routes name registered kinds
        names = {info.alias or name for name, info in grader.config_model.model_fields.items()}
        back = {theirs: ours for ours, theirs in self.renames.items()}
        out = {back.get(name, name) for name in names}
        if self.selector:
            out.add(self.selector)
        return out


def _tools(kind: str, *spellings: str) -> list[Route]:
    return [Route(kind, key, {key: "tools"}) for key in spellings]


ROUTES: dict[str, list[Route]] = {
    "deterministic_tests": [Route("command")],
    "static_analysis": [Route("command")],
    "llm_rubric": [Route("llmRubric")],
    "state_check": [
        Route("fileContains", "contains", {"contains": "value"}),
        Route("fileLacks", "lacks", {"lacks": "value"}),
        Route("fileMatches", "matches", {"matches": "value"}),
        Route("frontmatterEquals", "key"),
        Route("fileUnchanged", "fixture"),
        Route("fileExists", "exists", when=True),
        Route("fileAbsent", "exists", when=False),
        Route("fileExists"),
    ],
    "trajectory": [
        *_tools("expectedTools", "expected_tools", "expectedTools"),
        *_tools("forbiddenTools", "forbidden_tools", "forbiddenTools"),
        *_tools("toolOrder", "tool_order", "toolOrder"),
        Route("toolArgs", "tool"),
        Route("toolCallBudget", "max_tool_calls", {"max_tool_calls": "max"}),
        Route("toolCallBudget", "toolCallBudget", {"toolCallBudget": "max"}),
        Route("toolCallBudget", "max"),
    ],
}
FAMILIES = tuple(ROUTES)

# What to write, for the messages: which key picks which check.
_CHOICES = {
    "state_check": "contains, lacks, matches, key (with value), fixture or exists "
    "(true/false) beside path; path alone checks that the file exists",
    "trajectory": "expected_tools, forbidden_tools, tool_order, tool (with args) or max_tool_calls",
}


def family_keys(family: str) -> set[str]:
    keys = {"type", "name"}
    for route in ROUTES[family]:
        keys |= route.keys()
    return keys


def _pick(family: str, item: dict[str, Any], prefix: FieldPath) -> Route | Issue:
    routes = ROUTES[family]
    if len(routes) == 1:
        return routes[0]
    present = sorted({r.selector for r in routes if r.selector and r.selector in item})
    if len(present) > 1:
        named = " and ".join(present)
        return (prefix, f"a {family} item checks one thing, this one names {named}: give one of "
                        f"{_CHOICES[family]}")  # fmt: skip
    if present:
        key = present[0]
        value = item[key]
        for route in routes:
            if route.selector != key:
                continue
            if route.when is _ANY or (isinstance(value, bool) and value == route.when):
                return route
        return ((*prefix, key), f"must be true or false (got {value!r})")
    default = next((r for r in routes if r.selector is None), None)
    if default is not None and set(item) <= default.keys() | {"type"}:
        return default
    return (prefix, f"a {family} item needs one of {_CHOICES[family]}")


def route_family(
    item: dict[str, Any], prefix: FieldPath
) -> tuple[dict[str, Any] | None, dict[str, str], list[Issue]]:
    """(the item as its trialrun kind, kind key → family key, issues) for a family item."""
    family = item["type"]
    allowed = family_keys(family)
    unknown = [key for key in item if key not in allowed]
    if unknown:
        issues: list[Issue] = []
        for key in unknown:
            hint = suggest(str(key), allowed - {"type"})
            did = (
                f"; did you mean '{hint}'?" if hint else f" (allowed: {', '.join(sorted(allowed))})"
            )
            issues.append(((*prefix, key), f"unknown key '{key}' for a {family} grader{did}"))
        return None, {}, issues
    picked = _pick(family, item, prefix)
    if not isinstance(picked, Route):
        return None, {}, [picked]
    route = picked
    own = route.keys() | {"type"}
    stray = [key for key in item if key not in own]
    if stray:
        keys = ", ".join(sorted(own - {"type"}))
        what = f" that checks {route.selector}" if route.selector else ""
        return (
            None,
            {},
            [
                (
                    (*prefix, key),
                    f"'{key}' does not apply to a {family} item{what} (its keys: {keys})",
                )
                for key in stray
            ],
        )
    mapped: dict[str, Any] = {}
    for key, value in item.items():
        if key == "type":
            mapped["type"] = route.kind
        elif key == route.selector and route.when is not _ANY:
            continue
        else:
            mapped[route.renames.get(key, key)] = value
    back = {theirs: ours for ours, theirs in route.renames.items()}
    return mapped, back, []


def family_to_kind(item: dict[str, Any]) -> dict[str, Any]:
    """For `Task.model_validate`: the family item as its trialrun kind (ValueError if not)."""
    mapped, _, issues = route_family(item, ())
    if mapped is None:
        path, message = issues[0]
        where = ".".join(str(p) for p in path)
        raise ValueError(f"{where}: {message}" if where else message)
    return mapped


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def family_schemas(kinds: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """JSON schemas of every family route (title → schema), made from the kinds' schemas
    (`kinds`: grader type → its schema), so the schema and the loader agree."""
    out: dict[str, dict[str, Any]] = {}
    for family, routes in ROUTES.items():
        for route in routes:
            if route.kind not in kinds:
                continue
            schema = copy.deepcopy(kinds[route.kind])
            props: dict[str, Any] = schema.setdefault("properties", {})
            required: list[str] = schema.setdefault("required", [])
            for theirs, ours in ((t, o) for o, t in route.renames.items()):
                if theirs in props:
                    props[ours] = props.pop(theirs)
                    props[ours].pop("title", None)
                if theirs in required:
                    required[required.index(theirs)] = ours
            props["type"] = {"const": family, "title": "Type"}
            if route.selector and route.when is not _ANY:
                props[route.selector] = {"const": route.when}
            if route.selector and route.selector not in required:
                required.append(route.selector)
            suffix = _camel(route.selector) if route.selector else ""
            if route.when is False:
                suffix = "Absent"
            title = f"Spec{_camel(family)}{suffix}Grader"
            if title in out:  # another spelling of the same key (expected_tools, expectedTools)
                title = f"Spec{_camel(family)}{suffix}AliasGrader"
            schema["title"] = title
            schema["description"] = f"suite-spec family {family}: trialrun's {route.kind}"
            out[title] = schema
    return out
