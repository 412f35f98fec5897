"""A grader naming a tool the chosen agent preset does not have can never see a call to
it: a warning naming the tools the agent has, before the run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trialrun.tasks import Task, tool_names_in


def preset_tool_warnings(agent: object, tasks: Sequence[Task]) -> list[str]:
    preset: Any = getattr(agent, "preset", None)  # an AgentPreset, duck-typed
    tools = getattr(preset, "tools", None)
    if not tools:
        return []
    warnings: list[str] = []
    for task in tasks:
        for config in task.graders:
            for _, name in tool_names_in(config, ()):
                if name not in tools:
                    warnings.append(
                        f"{task.task_id}: {config.type} names tool '{name}', which "
                        f"{preset.name} does not have (a call to it can never happen); "
                        f"its tools: {', '.join(tools)}"
                    )
    return warnings
