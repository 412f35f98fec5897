"""Tools an agent may call: a name, a JSON schema for its parameters, and a function.

`@tool` builds the schema from the function's typed signature and its docstring (as
inspect_ai does): the first line is the description, and an `Args:` section describes the
parameters. A tool function takes a `ToolContext` first, then its parameters, and returns
a string (or awaits one). Raising `ToolError` (or any exception) gives the agent an error
result; a tool never crashes the trial.

A synchronous body runs on a daemon thread, never on the event loop (other trials, the
trial timeout and Ctrl-C keep working while it runs), unless the tool is `inline`: its
body is short, bounded local work that cannot block (a small regular file read), run on
the loop to skip the thread hand-off (on a busy loop a daemon-thread call costs about 25
context switches, more CPU than a small read); it may return an awaitable, e.g.
`run_sync(...)`, for its rare large case. Every call has a time limit:
the tool's own `timeout_s`, else the toolbox's, else TRIALRUN_TOOL_TIMEOUT_S, else 30 s.
A call over its limit is an error result naming the tool and the limit; the trial goes on.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import types
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, overload

from trialrun.core import ToolSpec, run_sync
from trialrun.errors import ToolError as ToolError  # re-exported: what a tool raises
from trialrun.errors import UserError

DEFAULT_TOOL_TIMEOUT_S = 30.0
TOOL_TIMEOUT_ENV = "TRIALRUN_TOOL_TIMEOUT_S"
MAX_TOOL_TIMEOUT_S = 86_400.0  # finite and bounded, as a task's own timeout_s


def default_tool_timeout() -> float:
    """The per-call limit of tools without their own: TRIALRUN_TOOL_TIMEOUT_S, else 30 s."""
    raw = os.environ.get(TOOL_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TOOL_TIMEOUT_S
    try:
        return check_timeout(float(raw), f"{TOOL_TIMEOUT_ENV}={raw!r}")
    except ValueError:
        raise UserError(
            f"{TOOL_TIMEOUT_ENV}={raw!r}: give the tool time limit in seconds, e.g. 30"
        ) from None


def check_timeout(value: Any, where: str) -> float:
    """A time limit in seconds (> 0, at most `MAX_TOOL_TIMEOUT_S`), or a UserError naming
    `where`."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not (0 < value <= MAX_TOOL_TIMEOUT_S):
        raise UserError(
            f"{where}: the time limit must be a number of seconds > 0 and at most "
            f"{MAX_TOOL_TIMEOUT_S:g} (a day), e.g. 30"
        )
    return float(value)


@dataclass(slots=True)
class ToolResult:
    ok: bool
    content: str


@dataclass(slots=True)
class ToolContext:
    """What a tool may touch: the trial's workspace, nothing else."""

    workspace: Path
    task_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


ToolFunction = Callable[..., "str | Awaitable[str]"]


@dataclass(slots=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    fn: ToolFunction
    takes_context: bool = True
    # this tool's per-call limit in seconds; None = the toolbox's (see the module docstring)
    timeout_s: float | None = None
    # a successful call ends a conversation with a simulated user (a hand-off to a human)
    ends_chat: bool = False
    # a synchronous body that is short and never blocks: run on the event loop (see above)
    inline: bool = False

    def spec(self) -> ToolSpec:
        """The OpenAI function-calling spec."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    async def call(
        self, ctx: ToolContext, arguments: dict[str, Any], timeout_s: float | None = None
    ) -> ToolResult:
        """Run the tool within its time limit (`self.timeout_s`, else `timeout_s`, else the
        default); every failure is an error result."""
        problem = check_arguments(self.parameters, arguments)
        if problem:
            return ToolResult(False, f"{self.name}: {problem}")
        limit = self.timeout_s or timeout_s or default_tool_timeout()
        try:
            async with asyncio.timeout(limit):  # not wait_for: no task made per call
                return await self._run(ctx, arguments)
        except TimeoutError:  # only the limit: _run turns the tool's own errors into results
            return ToolResult(
                False,
                f"{self.name}: no result within {limit:g}s (the tool time limit); "
                "try a narrower request",
            )

    async def _run(self, ctx: ToolContext, arguments: dict[str, Any]) -> ToolResult:
        args = (ctx,) if self.takes_context else ()
        try:
            if inspect.iscoroutinefunction(self.fn):
                out = await self.fn(*args, **arguments)
            elif self.inline:
                out = self.fn(*args, **arguments)
                if inspect.isawaitable(out):
                    out = await out
            else:
                out = await run_sync(self.fn, *args, **arguments)
                if inspect.isawaitable(out):
                    out = await out
        except ToolError as exc:
            return ToolResult(False, str(exc))
        except Exception as exc:  # a tool error is a result the agent sees, never a crash
            return ToolResult(False, f"{self.name} failed: {type(exc).__name__}: {exc}")
        return ToolResult(True, out if isinstance(out, str) else str(out))


_JSON_TYPES = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
}


def _schema_for(annotation: Any) -> dict[str, Any]:
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            return _schema_for(members[0])
        return {"anyOf": [_schema_for(a) for a in members]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple):
        item = _schema_for(args[0]) if args else {}
        return {"type": "array", "items": item} if item else {"type": "array"}
    if origin is dict or annotation is dict:
        return {"type": "object"}
    return {}


_ARG_LINE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    description_lines: list[str] = []
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if in_args:
            if stripped.endswith(":") and not line.startswith(" "):
                in_args = False
                continue
            match = _ARG_LINE.match(line)
            if match and line.startswith("    ") and not line.startswith("        "):
                current = match.group(1)
                params[current] = match.group(2).strip()
            elif current and stripped:
                params[current] += " " + stripped
            continue
        if not params:
            description_lines.append(stripped)
    description = " ".join(x for x in description_lines if x).strip()
    return description, params


@overload
def tool(fn: ToolFunction, *, name: str | None = None, inline: bool = False) -> Tool: ...
@overload
def tool(
    fn: None = None, *, name: str | None = None, inline: bool = False
) -> Callable[[ToolFunction], Tool]: ...
def tool(
    fn: ToolFunction | None = None, *, name: str | None = None, inline: bool = False
) -> Tool | Callable[[ToolFunction], Tool]:
    """Turn a typed function into a `Tool`. Use as `@tool`, `@tool(name="…")` or
    `@tool(inline=True)` (a short synchronous body that never blocks: run on the loop)."""

    def build(func: ToolFunction) -> Tool:
        signature = inspect.signature(func)
        hints = typing.get_type_hints(func)
        description, param_docs = _parse_docstring(func.__doc__ or "")
        properties: dict[str, Any] = {}
        required: list[str] = []
        takes_context = False
        for index, (pname, param) in enumerate(signature.parameters.items()):
            annotation = hints.get(pname, param.annotation)
            if index == 0 and (annotation is ToolContext or pname in ("ctx", "context")):
                takes_context = True
                continue
            schema = _schema_for(annotation)
            if pname in param_docs:
                schema["description"] = param_docs[pname]
            properties[pname] = schema
            if param.default is inspect.Parameter.empty:
                required.append(pname)
        parameters: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
        return Tool(
            name=name or func.__name__,
            description=description or (name or func.__name__),
            parameters=parameters,
            fn=func,
            takes_context=takes_context,
            inline=inline,
        )

    if fn is not None:
        return build(fn)
    return build


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """A cheap top-level check of arguments against a tool's schema; None when fine."""
    if not isinstance(arguments, dict):
        return "arguments must be a JSON object"
    props: dict[str, Any] = schema.get("properties", {})
    missing = [p for p in schema.get("required", []) if p not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    if schema.get("additionalProperties") is False:
        unknown = [a for a in arguments if a not in props]
        if unknown:
            return f"unknown argument(s): {', '.join(unknown)}; expected: {', '.join(props)}"
    for key, value in arguments.items():
        expected = props.get(key, {}).get("type")
        if expected in _PY_TYPES and value is not None:
            ok = isinstance(value, _PY_TYPES[expected])
            if expected in ("integer", "number") and isinstance(value, bool):
                ok = False
            if not ok:
                return f"argument '{key}' must be of type {expected}"
    return None
