"""A simulated user for agents that answer once (`--agent package.module:function`,
`--agent-cmd`, presets): the conversation runs outside them.

Each turn the inner agent is run on the task with, as its prompt, the conversation so
far (and the task's `system_prompt` first); the same toolbox serves every turn, so what a
tool changed stays changed. Its answer goes to the simulated user, whose reply starts the
next turn, until the reply holds the stop marker (none within `max_turns` replies:
failure "user_max_turns") or a tool that `ends_chat` succeeded. Tool calls, turns,
tokens and cost add up over the turns; the chat (user and agent messages) is the trial's
transcript. A task without `inputs.user`
goes to the inner agent as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents._simulated_user import USER_NAME, UserModels, model_spec, user_reply
from trialrun.agents._types import Agent, AgentLimits, AgentRun
from trialrun.core import Message
from trialrun.models import CompletionParams, ProviderSettings

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import Task
    from trialrun.tools import Toolbox

TURN_PROMPT = (
    "{system}You are in a chat with a user. The conversation so far:\n\n{chat}\n\n"
    "Reply to the user's last message (use your tools when you need them). Your final "
    "answer is sent to the user."
)


def render(chat: list[Message]) -> str:
    lines = []
    for message in chat:
        speaker = "User" if message.get("role") == "user" else "You"
        lines.append(f"{speaker}: {message.get('content') or ''}")
    return "\n\n".join(lines)


def _add(total: AgentRun, part: AgentRun) -> None:
    total.tool_calls.extend(part.tool_calls)
    total.usage.add(part.usage)
    offset = total.turns
    total.turn_meta.extend({**m, "turn": offset + int(m.get("turn", 0))} for m in part.turn_meta)
    total.turns += part.turns
    total.loop_fires += part.loop_fires
    total.notes.extend(part.notes)
    if part.cost_usd is not None:
        total.cost_usd = (total.cost_usd or 0.0) + part.cost_usd
    total.failure, total.failure_message = part.failure, part.failure_message
    total.infra_error = part.infra_error


def _ends_chat(toolbox: Toolbox, name: str) -> bool:
    tool = toolbox.get(name)
    return tool is not None and tool.ends_chat


class ConversingAgent:
    """Runs `inner` once per user turn of a task with a simulated user (module docstring)."""

    def __init__(self, inner: Agent, providers: ProviderSettings | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self._users = UserModels(providers)  # simulated users' models: the project's settings

    def __getattr__(self, name: str) -> Any:  # the inner agent's own settings (its preset)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def run(
        self,
        task: Task,
        workspace: Path | None,
        toolbox: Toolbox,
        model: Model | None,
        limits: AgentLimits,
    ) -> AgentRun:
        user = task.inputs.user
        if user is None:
            return await self.inner.run(task, workspace, toolbox, model, limits)
        spec = model_spec(user, task)
        user_model = self._users.get(spec) if spec is not None else model
        total = AgentRun()
        if user_model is None:
            total.infra_error = "the simulated user needs a model (--model or inputs.user.model)"
            return total
        trial = toolbox.ctx.extra.get("trial") if toolbox.ctx is not None else None
        params = CompletionParams(task_id=task.task_id, trial=trial)
        own = task.inputs.extra.get("system_prompt")
        system = f"{own}\n\n" if isinstance(own, str) and own.strip() else ""
        chat: list[Message] = []
        replies = 0

        async def ask_user() -> str:
            asked = user_reply(user_model, chat, user, task.inputs.prompt, params)
            reply, meta = await (limits.off_clock(asked) if limits.off_clock else asked)
            total.turn_meta.append({"turn": total.turns, **meta})
            chat.append({"role": "user", "name": USER_NAME, "content": reply})
            return reply

        if user.opens:
            replies += 1
            if user.stop in await ask_user():
                total.messages = list(chat)
                return total
        else:
            chat.append({"role": "user", "content": task.inputs.prompt})
        while True:
            prompt = TURN_PROMPT.format(system=system, chat=render(chat))
            inputs = task.inputs.model_copy(update={"prompt": prompt, "user": None})
            turn_task = task.model_copy(update={"inputs": inputs})
            part = await self.inner.run(turn_task, workspace, toolbox, model, limits)
            _add(total, part)
            total.final_text = part.final_text
            chat.append({"role": "assistant", "content": part.final_text})
            total.messages = list(chat)
            if part.failure is not None or part.infra_error is not None:
                return total
            if any(call.ok and _ends_chat(toolbox, call.name) for call in part.tool_calls):
                return total  # a hand-off (e.g. to a human agent) ends the conversation
            if replies >= user.max_turns:
                total.failure = "user_max_turns"
                total.failure_message = (
                    f"the simulated user did not end the chat within {user.max_turns} "
                    f"replies (no {user.stop!r})"
                )
                return total
            replies += 1
            reply = await ask_user()
            total.messages = list(chat)
            if user.stop in reply:
                return total
