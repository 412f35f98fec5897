"""Tool pack `python`: user functions as tools.

    environment:
      tools:
        - vault
        - python: {functions: ["mytools.weather:get_forecast", "tools.py:lookup"]}

Each function becomes a tool through `@tool` (schema from its typed signature, the
docstring's first line as description, `Args:` for parameters); one already decorated
with `@tool` is used as is. A first parameter named `ctx` (or typed ToolContext) receives
the trial's ToolContext (its `workspace`). Option `timeout_s`: the per-call time limit of
these tools (default: the toolbox's, 30 s).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from trialrun.core import load_object
from trialrun.errors import UserError
from trialrun.tools._tool import Tool, check_timeout, tool
from trialrun.tools._toolbox import tool_pack


def _functions(options: dict[str, Any]) -> list[str]:
    """The options checked without importing anything: the function references."""
    functions = options.get("functions")
    if isinstance(functions, str):
        functions = [functions]
    if not isinstance(functions, list) or not functions:
        raise UserError(
            'tool pack python: give functions: ["package.module:function", …] in its options'
        )
    unknown = set(options) - {"functions", "timeout_s"}
    if unknown:
        raise UserError(
            f"tool pack python: unknown option(s) {sorted(unknown)}; allowed: functions, timeout_s"
        )
    if options.get("timeout_s") is not None:
        check_timeout(options["timeout_s"], "tool pack python: timeout_s")
    for index, ref in enumerate(functions):
        module, sep, attr = ref.rpartition(":") if isinstance(ref, str) else ("", "", "")
        if not (module and sep and attr):
            raise UserError(
                f"tool pack python: functions[{index}]: expected 'package.module:function', "
                f"got {ref!r}"
            )
    return functions


def _check_options(options: dict[str, Any]) -> None:
    _functions(options)


@tool_pack("python", _check_options)
def python_pack(options: dict[str, Any]) -> list[Tool]:
    functions = _functions(options)
    timeout_s = options.get("timeout_s")
    if timeout_s is not None:
        timeout_s = check_timeout(timeout_s, "tool pack python: timeout_s")
    tools: list[Tool] = []
    for index, ref in enumerate(functions):
        where = f"tool pack python: functions[{index}]"
        obj = load_object(ref, where)
        if isinstance(obj, Tool):
            tools.append(replace(obj, timeout_s=timeout_s) if timeout_s else obj)
        elif callable(obj):
            try:
                built = tool(obj)
            except Exception as exc:  # unusual signatures
                raise UserError(f"{where} {ref}: cannot make a tool of it ({exc})") from None
            assert isinstance(built, Tool)
            built.timeout_s = timeout_s
            tools.append(built)
        else:
            raise UserError(f"{where} {ref}: not a function")
    names = [t.name for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise UserError(f"tool pack python: duplicate tool name(s) {duplicates}")
    return tools
