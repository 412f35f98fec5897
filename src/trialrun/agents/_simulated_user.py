"""A simulated user for multi-turn tasks (`inputs.user`): after each answer of the agent it
replies in character, until its reply holds the stop marker.

The user model sees the conversation from its side: a system prompt with the persona, the
scenario and the opening message (the task's prompt), then the agent's answers as `user`
turns and its own earlier replies as `assistant` turns, so a scripted user file plays its
turn i as its i-th reply. Its messages join the agent's chat as `user` messages named
`simulated_user`: both sides are in the transcript, and graders see the whole conversation.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.core import Message
from trialrun.models import CompletionParams, ProviderSettings, create_model

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import SimulatedUser, Task

USER_NAME = "simulated_user"

USER_PROMPT = (
    "You are role-playing a user who talks to an AI assistant. Stay in character and never "
    "say you are an AI.\n\nWho you are: {persona}\n\nYour situation and goal: {scenario}\n\n"
    'You opened the conversation with: "{opening}"\n\n'
    "Reply to the assistant's last message as this user, in one or two short sentences. "
    "When your goal is met, or clearly cannot be met, end your reply with {stop}"
)
# `opens`: the user speaks first; the agent's greeting (the task's prompt) opens its view
USER_OPENS_PROMPT = (
    "You are role-playing a user who talks to an AI assistant. Stay in character and never "
    "say you are an AI.\n\nWho you are: {persona}\n\nYour situation and goal: {scenario}\n\n"
    "Reply to the assistant's last message as this user, in one or two short sentences. "
    "When your goal is met, or clearly cannot be met, end your reply with {stop}"
)


def model_spec(user: SimulatedUser, task: Task) -> str | None:
    """The user's model spec with a relative scripted/GGUF path taken from the task file's
    folder; None: the model under test."""
    spec = user.model
    if spec is None:
        return None
    provider, _, rest = spec.partition(":")
    if provider in ("scripted", "local") and rest and task.source is not None:
        path = Path(rest)
        if not path.is_absolute():
            return f"{provider}:{(task.source.parent / path).resolve()}"
    return spec


class UserModels:
    """Builds each user model once per run (an agent instance serves every trial), with
    the project's `settings` for model clients (None: the defaults)."""

    def __init__(self, settings: ProviderSettings | None = None) -> None:
        self._models: dict[str, Model] = {}
        self._settings = settings

    def get(self, spec: str) -> Model:
        if spec not in self._models:
            self._models[spec] = create_model(
                spec, flag="inputs.user.model", settings=self._settings
            )
        return self._models[spec]


def user_view(messages: list[Message], user: SimulatedUser, opening: str) -> list[Message]:
    """The conversation as the simulated user sees it (roles swapped, tools left out).
    With `user.opens`, `opening` is the agent's greeting the user answers first."""
    if user.opens:
        system = USER_OPENS_PROMPT.format(
            persona=user.persona, scenario=user.scenario, stop=user.stop
        )
        out: list[Message] = [
            {"role": "system", "content": system},
            {"role": "user", "content": opening},
        ]
    else:
        system = USER_PROMPT.format(
            persona=user.persona, scenario=user.scenario, opening=opening, stop=user.stop
        )
        out = [{"role": "system", "content": system}]
    for m in messages:
        content = m.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        if m.get("role") == "assistant" and not m.get("tool_calls"):
            out.append({"role": "user", "content": content})
        elif m.get("role") == "user" and m.get("name") == USER_NAME:
            out.append({"role": "assistant", "content": content})
    return out


async def user_reply(
    model: Model,
    messages: list[Message],
    user: SimulatedUser,
    opening: str,
    params: CompletionParams,
) -> tuple[str, dict[str, Any]]:
    """(the user's next message, its turn metadata)."""
    started = time.perf_counter()
    completion = await model.complete(user_view(messages, user, opening), [], params)
    meta = {
        "simulated_user": True,
        "latency_s": time.perf_counter() - started,
        "tokens": completion.usage.as_dict(),
        "cost_usd": completion.cost_usd,
    }
    return (completion.text or "").strip(), meta


def conversation_text(messages: list[Message]) -> str:
    """The chat as judges read it: every user message and every answer, tools left out."""
    lines = []
    for m in messages:
        content = m.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        if m.get("role") == "user":
            lines.append(f"User: {content.strip()}")
        elif m.get("role") == "assistant" and not m.get("tool_calls"):
            lines.append(f"Assistant: {content.strip()}")
    return "\n\n".join(lines)
