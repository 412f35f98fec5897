"""Tool pack `replay`: tools with no workspace effect, answered from a recording.

    environment:
      tools:
        - vault
        - replay:
            calls:
              - {tool: get_deploy_status, arguments: {service: checkout}, ok: false,
                 result: "503 Service Unavailable"}

Each recorded tool name becomes a tool. A call is answered from the recording while it
matches it: the next recorded call of that tool when the arguments are equal, else any
recorded call of that tool with equal arguments (a repeated call gets the recorded answer
again); a call the recording does not hold is an error result naming what it has.
`ok: false` replays a failed call as an error result. `trialrun replay import` writes this.
"""

from __future__ import annotations

import json
from typing import Any

from trialrun.errors import UserError
from trialrun.tools._tool import Tool, ToolContext, ToolError
from trialrun.tools._toolbox import tool_pack

_STATE = "replay_cursor"  # per trial, in ToolContext.extra: tool name -> next recorded call


def _key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def _check(calls: Any) -> list[dict[str, Any]]:
    if not isinstance(calls, list) or not calls:
        raise UserError("tool pack replay: give calls: [{tool, arguments, result, ok?}, …]")
    out = []
    for index, call in enumerate(calls):
        where = f"tool pack replay: calls[{index}]"
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str) or not call["tool"]:
            raise UserError(f"{where}: needs tool (a name), arguments and result")
        unknown = set(call) - {"tool", "arguments", "result", "ok", "turn"}
        if unknown:
            raise UserError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: tool, "
                            "arguments, result, ok, turn")
        arguments = call.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise UserError(f"{where}.arguments: must be a mapping")
        ok = call.get("ok", True)
        if not isinstance(ok, bool):
            raise UserError(f"{where}.ok: must be true or false")
        out.append({"tool": call["tool"], "arguments": arguments, "ok": ok,
                    "result": str(call.get("result") or "")})
    return out


def _replayed(name: str, recorded: list[dict[str, Any]]) -> Tool:
    keys = [_key(c["arguments"]) for c in recorded]
    names = sorted({p for c in recorded for p in c["arguments"]})

    def answer(ctx: ToolContext, **arguments: Any) -> str:
        cursors: dict[str, int] = ctx.extra.setdefault(_STATE, {})
        at = cursors.get(name, 0)
        key = _key(arguments)
        if at < len(recorded) and keys[at] == key:
            hit = recorded[at]
            cursors[name] = at + 1
        elif key in keys:
            hit = recorded[keys.index(key)]
        else:
            known = "; ".join(sorted(set(keys)))[:500]
            raise ToolError(f"{name}: replay has no recorded result for {key}; recorded: {known}")
        if not hit["ok"]:
            raise ToolError(hit["result"])
        result: str = hit["result"]
        return result

    parameters = {
        "type": "object",
        "properties": {p: {} for p in names},
        "additionalProperties": True,
    }
    description = f"{name} (replayed from a recording: {len(recorded)} recorded call(s))"
    return Tool(name, description, parameters, answer)


def _check_options(options: dict[str, Any]) -> None:
    unknown = set(options) - {"calls"}
    if unknown:
        raise UserError(f"tool pack replay: unknown option(s) {sorted(unknown)}; allowed: calls")
    _check(options.get("calls"))


@tool_pack("replay", _check_options)
def replay_pack(options: dict[str, Any]) -> list[Tool]:
    _check_options(options)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for call in _check(options.get("calls")):
        by_name.setdefault(call["tool"], []).append(call)
    return [_replayed(name, recorded) for name, recorded in by_name.items()]
