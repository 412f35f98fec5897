"""Which agent runs each task: `--agent`/`--agent-cmd` (the command line or the Python
API) beats a task file's `agent:`, which beats `[run] agent` in trialrun.toml; none of
them: the built-in tool loop. A run whose tasks name different agents runs each task
with its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from trialrun.config import ProjectConfig
from trialrun.errors import ConfigError, UserError

if TYPE_CHECKING:
    from trialrun.agents import Agent
    from trialrun.tasks import Task


def configured_agent(project: ProjectConfig) -> str | None:
    """`[run] agent` in trialrun.toml (a preset or package.module:function), or None."""
    value = project.section("run").get("agent")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            'must be a preset name or package.module:function, e.g. "gemini-cli"',
            place="[run] agent", source=project.path,
        )
    return value.strip()


def own_agents(given: bool, default: str | None, tasks: Sequence[Task]) -> dict[str, str]:
    """task id → the agent its file names, for tasks that run another agent than the run's
    default `default`; none when --agent/--agent-cmd was `given` (it beats task files)."""
    if given:
        return {}
    return {t.task_id: t.agent for t in tasks if t.agent and t.agent != default}


def task_agents(
    by_task: dict[str, str], make: Callable[[str], Agent], sources: dict[str, str]
) -> dict[str, Agent]:
    """task id → its own agent (one object per distinct spec), for the tasks that name
    one other than the run's default; a spec that cannot be made is one line naming the
    task file (`sources`: task id → file) and its `agent` key."""
    made: dict[str, Agent] = {}
    out: dict[str, Agent] = {}
    for task_id, spec in by_task.items():
        if spec not in made:
            try:
                made[spec] = make(spec)
            except UserError as exc:
                where = sources.get(task_id, f"task {task_id}")
                if exc.place == "--agent":  # the spec came from the task file's `agent` key
                    raise exc.at("agent", source=where, value=None) from None
                raise UserError(exc.describe(), place="agent", source=where) from None
        out[task_id] = made[spec]
    return out
