"""The task format's reference: every key of the JSON Schema, and the anchor of its section.

The docs generator (docs/hooks/reference.py) writes one section per `TaskKey` under
`key_anchor(path)`, and the loader's messages name the same anchor (`see_reference`), so
a message can only point at a section the page has.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from trialrun.graders import GRADERS
from trialrun.tasks._issues import BELONGS_AT, value_at
from trialrun.tasks._problems import FieldPath
from trialrun.tasks._schema import task_json_schema

TASKS_REFERENCE = "docs/reference/tasks.md"
GRADERS_KEY = "graders"
SCRIBE_ANCHOR = "scribe"  # the Scribe format's section
_DID_YOU_MEAN = re.compile(r"^unknown key '[^']*'; did you mean '([^']+)'\?$")


@dataclass(frozen=True, slots=True)
class TaskKey:
    """One key of the task format, as the schema says it."""

    path: tuple[str, ...]
    type: str
    required: bool
    default: str | None  # JSON text of the default; None: no default
    description: str

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def anchor(self) -> str:
        return key_anchor(self.path)


def key_anchor(path: tuple[str, ...]) -> str:
    """`("environment", "budgets")` → `environment-budgets` (lower case, `-` between keys)."""
    return "-".join(re.sub(r"[^a-z0-9_]+", "", part.lower()) or "key" for part in path)


def grader_anchor(kind: str) -> str:
    """The section of one grader `type` on the tasks page: `grader-filecontains`."""
    return key_anchor(("grader", kind))


@functools.cache
def task_keys() -> tuple[TaskKey, ...]:
    """Every key of a native task, depth first (graders' own keys are per grader kind)."""
    schema = task_json_schema()
    return tuple(_walk(schema, schema, ()))


def grader_schemas() -> dict[str, dict[str, Any]]:
    """Grader `type` → its schema (with `$defs` resolved against the task schema)."""
    return dict(_grader_schemas(tuple(GRADERS.names())))


@functools.cache
def _grader_schemas(kinds: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Cached per set of registered `kinds` (a grader registered later is seen)."""
    schema = task_json_schema()
    out: dict[str, dict[str, Any]] = {}
    for option in schema["properties"][GRADERS_KEY]["items"].get("oneOf", []):
        sub = _deref(schema, option)
        kind = sub.get("properties", {}).get("type", {})
        name = kind.get("const")
        if isinstance(name, str):
            out.setdefault(name, sub)
    return out


def type_text(root: dict[str, Any], node: dict[str, Any]) -> str:
    """A short type for a schema node: `integer`, `string | null`, `list of string`, …"""
    if "$ref" in node:
        return "mapping"
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    for union in ("anyOf", "oneOf"):
        if union in node:
            parts = dict.fromkeys(type_text(root, option) for option in node[union])
            return " | ".join(parts)
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        return f"list of {type_text(root, items)}" if isinstance(items, dict) else "list"
    if kind == "object":
        return "mapping"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    return str(kind) if kind else "any"


def _deref(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        node = root["$defs"][name]
    return node


def _objects(root: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    """The mappings (with `properties`) a value at `node` may be, through refs, unions, lists."""
    node = _deref(root, node)
    if "properties" in node:
        return [node]
    out: list[dict[str, Any]] = []
    for union in ("anyOf", "oneOf"):
        for option in node.get(union, []):
            out += _objects(root, option)
    items = node.get("items")
    if isinstance(items, dict):
        out += _objects(root, items)
    return out


def _walk(root: dict[str, Any], node: dict[str, Any], path: tuple[str, ...]) -> list[TaskKey]:
    out: list[TaskKey] = []
    required = set(node.get("required", []))
    for name, prop in node.get("properties", {}).items():
        here = (*path, name)
        default = json.dumps(prop["default"]) if "default" in prop else None
        target = _deref(root, prop)
        description = str(prop.get("description") or target.get("description") or "")
        out.append(TaskKey(here, type_text(root, prop), name in required, default, description))
        if here == (GRADERS_KEY,):
            continue
        for sub in _objects(root, prop):
            out += [key for key in _walk(root, sub, here) if key.path not in {k.path for k in out}]
    return out


def reference_anchor(path: FieldPath, data: Any = None) -> str:
    """The tasks page's section for a problem at `path` (indexes and prefix dropped): the
    deepest documented key on it, or the grader kind's section for a grader item."""
    keys = [p for p in path if isinstance(p, str)]
    if GRADERS_KEY in keys:
        kind = _grader_type(path, data)
        return grader_anchor(kind) if kind in grader_schemas() else key_anchor((GRADERS_KEY,))
    known = {key.path for key in task_keys()}
    for end in range(len(keys), 0, -1):
        for start in range(0, end):  # the task list's prefix (`tasks`) is not a key
            if tuple(keys[start:end]) in known:
                return key_anchor(tuple(keys[start:end]))
    return "task-keys"


def see_reference(path: FieldPath, data: Any = None) -> str:
    """`docs/reference/tasks.md#environment-budgets`, for the end of a message."""
    return f"{TASKS_REFERENCE}#{reference_anchor(path, data)}"


def meant_path(path: FieldPath, message: str) -> FieldPath:
    """The key a message is about: the place a misplaced key belongs, the key a misspelt
    one meant, else `path` itself."""
    if BELONGS_AT in message:
        return tuple(message.rsplit(BELONGS_AT, 1)[1].split("."))
    if (hint := _DID_YOU_MEAN.match(message)) and path:
        return (*path[:-1], hint.group(1))
    return path


def scribe_reference(path: FieldPath, keys: Collection[str]) -> str:
    """A Scribe file's problem: the row of its key (one of `keys`), else the section."""
    first = next((p for p in path if isinstance(p, str)), None)
    anchor = key_anchor(("scribe", first)) if first is not None and first in keys else SCRIBE_ANCHOR
    return f"{TASKS_REFERENCE}#{anchor}"


def _grader_type(path: FieldPath, data: Any) -> str | None:
    at = path.index(GRADERS_KEY)
    node = value_at(data, path[: at + 2])
    kind = node.get("type") if isinstance(node, dict) else None
    return kind if isinstance(kind, str) else None
