"""Trajectory graders: maxRepeatedCalls, recoversAfterToolError, maxTurns, firstToolIs;
and `trajectory_figures`, the per-trial figures results lines carry.

Two calls are identical when their names and arguments (compared as canonical JSON) are.
A failed call is recovered from when the agent's next step is a different call or a
non-empty answer, not the same call again.

    - {type: maxRepeatedCalls, max: 2}          # no identical call more than twice
    - {type: recoversAfterToolError}
    - {type: maxTurns, max: 6}
    - {type: firstToolIs, tool: read_file}      # or a list: any of them
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Literal

from pydantic import Field

from trialrun.core import ToolCallRecord
from trialrun.graders._calls import call_place, call_turns
from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader


def call_key(call: ToolCallRecord) -> str:
    try:
        args = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        args = repr(call.arguments)
    return f"{call.name}({args})"


def repeated_calls(calls: list[ToolCallRecord]) -> int:
    """Calls that repeat an earlier identical one (name + arguments)."""
    return len(calls) - len({call_key(c) for c in calls})


def recoveries(calls: list[ToolCallRecord], final_text: str) -> list[dict[str, Any]]:
    """One entry per failed call: what followed it and whether that is a recovery."""
    out = []
    for index, call in enumerate(calls):
        if call.ok:
            continue
        if index + 1 < len(calls):
            following = calls[index + 1]
            same = call_key(following) == call_key(call)
            step = "the same call again" if same else f"a different call ({following.name})"
            out.append({"call": index, "name": call.name, "next": step, "recovered": not same})
        else:
            answered = bool(final_text.strip())
            step = "an answer" if answered else "no answer"
            out.append({"call": index, "name": call.name, "next": step, "recovered": answered})
    return out


def trajectory_figures(calls: list[ToolCallRecord], final_text: str) -> dict[str, Any]:
    """`repeated_calls`, `tool_errors` and `recovered` (None when no call failed)."""
    steps = recoveries(calls, final_text)
    return {
        "repeated_calls": repeated_calls(calls),
        "tool_errors": len(steps),
        "recovered": all(s["recovered"] for s in steps) if steps else None,
    }


class _MaxConfig(GraderConfig):
    max: int = Field(ge=0)


class MaxRepeatedCallsConfig(_MaxConfig):
    type: Literal["maxRepeatedCalls"] = "maxRepeatedCalls"


@grader("maxRepeatedCalls", MaxRepeatedCallsConfig)
def max_repeated_calls(config: MaxRepeatedCallsConfig, trial: TrialView) -> Verdict:
    counts = Counter(call_key(c) for c in trial.tool_calls)
    repeats = repeated_calls(trial.tool_calls)
    details: dict[str, Any] = {"max": config.max, "repeated_calls": repeats}
    if not counts:
        return Verdict(config.label, True, details)
    key, most = counts.most_common(1)[0]
    details.update({"most_repeated": key[:300], "times": most})
    if most > config.max:
        turns = call_turns(trial)
        places = [
            call_place(i, c.name, turns[i])
            for i, c in enumerate(trial.tool_calls)
            if call_key(c) == key
        ]
        details["calls"] = places[:20]
        details["reason"] = f"{key[:200]} called {most} times (at most {config.max})"
    return Verdict(config.label, most <= config.max, details)


class RecoversAfterToolErrorConfig(GraderConfig):
    type: Literal["recoversAfterToolError"] = "recoversAfterToolError"


@grader("recoversAfterToolError", RecoversAfterToolErrorConfig)
def recovers_after_tool_error(config: RecoversAfterToolErrorConfig, trial: TrialView) -> Verdict:
    steps = recoveries(trial.tool_calls, trial.final_text)
    turns = call_turns(trial)
    for step in steps:
        step["where"] = call_place(step["call"], step["name"], turns[step["call"]])
    failed = [s for s in steps if not s["recovered"]]
    details: dict[str, Any] = {"tool_errors": len(steps), "after_errors": steps[:20]}
    if failed:
        details["reason"] = f"{failed[0]['where']} failed and was followed by {failed[0]['next']}"
    return Verdict(config.label, not failed, details)


class MaxTurnsConfig(_MaxConfig):
    type: Literal["maxTurns"] = "maxTurns"


@grader("maxTurns", MaxTurnsConfig)
def max_turns(config: MaxTurnsConfig, trial: TrialView) -> Verdict:
    details = {"max": config.max, "turns": trial.turns}
    return Verdict(config.label, trial.turns <= config.max, details)


class FirstToolIsConfig(GraderConfig):
    type: Literal["firstToolIs"] = "firstToolIs"
    tool: str | list[str]


@grader("firstToolIs", FirstToolIsConfig)
def first_tool_is(config: FirstToolIsConfig, trial: TrialView) -> Verdict:
    expected = [config.tool] if isinstance(config.tool, str) else list(config.tool)
    first = trial.tool_calls[0].name if trial.tool_calls else None
    details = {"expected": expected, "first": first}
    return Verdict(config.label, first in expected, details)
