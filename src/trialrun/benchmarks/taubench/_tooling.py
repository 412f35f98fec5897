"""How a domain tool is declared: a name, a description, a JSON schema of its arguments
(all required, as τ-bench publishes them) and a body over the database tables.

A body validates everything before it changes anything, and refuses with `ToolFailure`;
the arguments' names and top-level types are checked here first, so a body never sees a
missing or mistyped argument.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from trialrun.benchmarks.taubench._errors import ToolFailure

# table name (a data file's stem) -> record id -> record
Tables = dict[str, dict[str, Any]]
ToolBody = Callable[..., str]

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


@dataclass(frozen=True, slots=True)
class DomainTool:
    name: str
    description: str
    parameters: dict[str, Any]
    body: ToolBody

    def spec(self) -> dict[str, Any]:
        """The OpenAI function-calling spec."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def problem(self, arguments: Mapping[str, Any]) -> str | None:
        """Why these arguments cannot be passed to the body, or None."""
        props: dict[str, Any] = self.parameters["properties"]
        missing = [p for p in self.parameters["required"] if p not in arguments]
        if missing:
            return f"missing argument(s): {', '.join(missing)}"
        unknown = [a for a in arguments if a not in props]
        if unknown:
            return f"unknown argument(s): {', '.join(unknown)}; expected: {', '.join(props)}"
        for key, value in arguments.items():
            kind = props[key].get("type")
            allowed = _TYPES.get(kind, (object,))
            if isinstance(value, bool) and kind != "boolean" or not isinstance(value, allowed):
                return f"argument '{key}' must be of type {kind}"
            choices = props[key].get("enum")
            if choices is not None and value not in choices:
                return f"argument '{key}' must be one of {', '.join(map(str, choices))}"
        return None


def text(kind: str, description: str = "", **more: Any) -> dict[str, Any]:
    """One parameter's schema."""
    schema: dict[str, Any] = {"type": kind, **more}
    if description:
        schema["description"] = description
    return schema


def define(name: str, description: str, body: ToolBody, **params: dict[str, Any]) -> DomainTool:
    """A tool whose every parameter is required."""
    parameters = {"type": "object", "properties": params, "required": list(params)}
    return DomainTool(name, description, parameters, body)


def record(value: Any, missing: str) -> dict[str, Any]:
    """A database record, or a ToolFailure saying `missing` when there is none."""
    if not isinstance(value, dict):
        raise ToolFailure(missing)
    return value


def as_json(value: Any) -> str:
    """A tool's JSON answer (the shape τ-bench's tools print)."""
    return json.dumps(value)


def object_list(
    value: Any, keys: tuple[str, ...], what: str, numbers: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """A list of objects each holding `keys` (strings, or numbers for `numbers`), else a
    ToolFailure naming `what`."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ToolFailure(f"{what} must be a list of objects")
    for item in value:
        missing = [k for k in keys if k not in item]
        if missing:
            raise ToolFailure(f"each of {what} needs {', '.join(keys)}")
        for key in keys:
            found = item[key]
            if key in numbers:
                if isinstance(found, bool) or not isinstance(found, int | float):
                    raise ToolFailure(f"{what}: {key} must be a number")
            elif not isinstance(found, str):
                raise ToolFailure(f"{what}: {key} must be a string")
    return value


def string_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolFailure(f"{what} must be a list of strings")
    return value
