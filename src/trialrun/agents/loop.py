"""The built-in agent: an OpenAI-style tool-calling loop over a Model and a Toolbox.

messages = [system, prior `inputs.messages`…, user (prompt + context files)], then:
call the model (one turn), append its assistant message, run each tool call through the
toolbox, append the tool results; stop when the model calls no tool (its text is the
final answer) — or, with a simulated user (`inputs.user`), when the user's reply holds its
stop marker (no marker within its `max_turns` replies: failure "user_max_turns"); a user
that `opens` writes the first message itself; a successful call of a tool that `ends_chat`
(a hand-off to a human) ends it too. A task's `inputs.system_prompt` replaces the loop's
own system prompt.
Limits end the trial as the agent's failure (not passed): more than
`max_turns` model calls ("max_turns"), the trial timeout ("timeout", the partial
transcript is kept), token and cost caps ("max_tokens", "max_cost"), a model call over
its own timeout ("model_timeout"). A provider that cannot be reached is an infra error.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents._simulated_user import USER_NAME, UserModels, model_spec, user_reply
from trialrun.agents._types import AgentLimits, AgentRun
from trialrun.core import Message, ToolCallRecord
from trialrun.errors import InfraError, ModelTimeout
from trialrun.models import CompletionParams, ProviderSettings, assistant_message
from trialrun.sandbox import resolve_note
from trialrun.tools import ToolError, ToolResult

if TYPE_CHECKING:
    from trialrun.models import Completion, Model, ToolCall
    from trialrun.tasks import SimulatedUser, Task
    from trialrun.tools import Toolbox

SYSTEM_PROMPT = (
    "You are an assistant working in the user's vault: a folder of notes and files. "
    "Use the tools to read, search and change files; paths are relative to the vault "
    "root. Only change what the user asks for. When you are done, answer the user "
    "directly without calling a tool."
)

MAX_CONTEXT_FILE_CHARS = 100_000


def user_message(task: Task, workspace: Path | None) -> str:
    """The prompt with the task's context files attached (read inside the workspace)."""
    files = task.inputs.context_files
    if not files:
        return task.inputs.prompt
    parts = [task.inputs.prompt, "", "Context files:"]
    for name in files:
        if workspace is None:
            body = "(no workspace)"
        else:
            try:
                path = resolve_note(workspace, name)
                body = path.read_text(encoding="utf-8", errors="replace")
                if len(body) > MAX_CONTEXT_FILE_CHARS:
                    body = body[:MAX_CONTEXT_FILE_CHARS] + "\n[… truncated]"
            except (ToolError, OSError) as exc:
                body = f"(could not read: {exc})"
        parts.append(f'<file path="{name}">\n{body}\n</file>')
    return "\n".join(parts)


def initial_messages(
    task: Task, workspace: Path | None, system: str = SYSTEM_PROMPT
) -> list[Message]:
    """[system, prior turns…, the user message]; a task's own `inputs.system_prompt` (a
    benchmark's policy) replaces the loop's system prompt."""
    own = task.inputs.extra.get("system_prompt")
    if isinstance(own, str) and own.strip():
        system = own
    messages: list[Message] = [{"role": "system", "content": system}]
    messages.extend({"role": m.role, "content": m.content} for m in task.inputs.messages)
    messages.append({"role": "user", "content": user_message(task, workspace)})
    return messages


class ToolLoopAgent:
    """The built-in agent (see the module docstring). Stateless: one instance serves all."""

    name = "tool-loop"

    def __init__(
        self, system_prompt: str = SYSTEM_PROMPT, providers: ProviderSettings | None = None
    ) -> None:
        self.system_prompt = system_prompt
        self._users = UserModels(providers)  # simulated users' models: the project's settings

    async def run(
        self,
        task: Task,
        workspace: Path | None,
        toolbox: Toolbox,
        model: Model | None,
        limits: AgentLimits,
    ) -> AgentRun:
        run = AgentRun()
        if model is None:
            run.infra_error = "the built-in agent needs a model (--model)"
            return run
        run.messages = initial_messages(task, workspace, self.system_prompt)
        try:
            if limits.within is not None:
                await limits.within(self._loop(task, toolbox, model, limits, run))
            elif limits.timeout_s:
                await asyncio.wait_for(
                    self._loop(task, toolbox, model, limits, run), limits.timeout_s
                )
            else:
                await self._loop(task, toolbox, model, limits, run)
        except TimeoutError:
            run.failure = "timeout"
            run.failure_message = f"trial timed out after {limits.timeout_s:g}s"
        except ModelTimeout as exc:
            run.failure = "model_timeout"
            run.failure_message = str(exc) or "a model call timed out"
        except InfraError as exc:
            run.infra_error = str(exc) or "infrastructure error"
        return run

    async def _loop(
        self, task: Task, toolbox: Toolbox, model: Model, limits: AgentLimits, run: AgentRun
    ) -> None:
        specs = toolbox.specs()
        trial = toolbox.ctx.extra.get("trial") if toolbox.ctx is not None else None
        params = CompletionParams(task_id=task.task_id, trial=trial, timeout_s=limits.timeout_s)
        messages = run.messages
        seen_calls: set[tuple[str, str]] = set()
        user = self._simulated_user(task, model, params, limits)
        if user is not None and user.spec.opens:
            # the user speaks first: its opening replaces the prompt as the first message
            reply = await user.reply([], run, turn=0)
            messages[-1] = {"role": "user", "name": USER_NAME, "content": reply}
            if user.spec.stop in reply:
                return
        while True:
            if run.turns >= limits.max_turns:
                run.failure = "max_turns"
                run.failure_message = f"still calling tools after {limits.max_turns} turns"
                return
            started = time.perf_counter()
            completion = await model.complete(messages, specs, params)
            _account(run, completion, time.perf_counter() - started)
            calls = completion.tool_calls
            messages.append(assistant_message(completion))
            await _call_tools(toolbox, calls, run, seen_calls)
            if _over_budget(run, limits):
                return
            has_user = task.inputs.user is not None
            if calls and has_user and _ends_chat(toolbox, run.tool_calls[-len(calls) :]):
                run.final_text = completion.text or ""
                return  # a hand-off (e.g. to a human agent) ends the conversation
            if not calls:
                run.final_text = completion.text or ""
                if user is None:
                    return
                # a simulated user answers; its stop marker ends the conversation
                if user.turns >= user.spec.max_turns:
                    run.failure = "user_max_turns"
                    run.failure_message = (
                        f"the simulated user did not end the chat within {user.spec.max_turns} "
                        f"replies (no {user.spec.stop!r})"
                    )
                    return
                reply = await user.reply(messages, run, turn=run.turns - 1)
                messages.append({"role": "user", "name": USER_NAME, "content": reply})
                if user.spec.stop in reply:
                    return

    def _simulated_user(
        self, task: Task, model: Model, params: CompletionParams, limits: AgentLimits
    ) -> _UserSide | None:
        """The task's simulated user and the model that plays it (None: no user, or no
        model for it)."""
        user = task.inputs.user
        if user is None:
            return None
        spec = model_spec(user, task)
        user_model = self._users.get(spec) if spec is not None else model
        if user_model is None:
            return None
        return _UserSide(user, user_model, task.inputs.prompt, params, limits.off_clock)


@dataclass(slots=True)
class _UserSide:
    """A simulated user in the loop: its spec, the model playing it, the replies given."""

    spec: SimulatedUser
    model: Model
    prompt: str
    params: CompletionParams
    off_clock: Callable[[Awaitable[Any]], Awaitable[Any]] | None
    turns: int = 0

    async def reply(self, messages: list[Message], run: AgentRun, *, turn: int) -> str:
        asked = user_reply(self.model, messages, self.spec, self.prompt, self.params)
        # the user's time is not the agent's: off the trial's budget clock
        reply, meta = await (self.off_clock(asked) if self.off_clock else asked)
        self.turns += 1
        run.turn_meta.append({"turn": turn, **meta})
        return str(reply)


def _account(run: AgentRun, completion: Completion, latency: float) -> None:
    """One model call counted: the turn, its tokens, its cost and its latency."""
    run.turns += 1
    usage = completion.usage
    run.usage.add(usage)
    if completion.cost_usd is not None:
        run.cost_usd = (run.cost_usd or 0.0) + completion.cost_usd
    run.turn_meta.append(
        {
            "turn": run.turns - 1,
            "latency_s": latency,
            "tokens": usage.as_dict(),
            "cost_usd": completion.cost_usd,
        }
    )


async def _call_tools(
    toolbox: Toolbox, calls: list[ToolCall], run: AgentRun, seen_calls: set[tuple[str, str]]
) -> None:
    """Each call through the toolbox (bad arguments answered, not run), its result appended;
    a call repeated with the same arguments counts as a loop."""
    for call in calls:
        if call.arguments_error:
            result = ToolResult(
                False, f"{call.name}: invalid arguments: {call.arguments_error}"
            )
        else:
            result = await toolbox.call(call.name, call.arguments)
        key = (call.name, _canonical(call.arguments, call.raw_arguments))
        if key in seen_calls:
            run.loop_fires += 1
        else:
            seen_calls.add(key)
        run.tool_calls.append(
            ToolCallRecord(call.name, call.arguments, result.ok, result.content)
        )
        run.messages.append(
            {
                "role": "tool",
                "tool_call_id": call.id,
                "name": call.name,
                "content": result.content,
            }
        )


def _over_budget(run: AgentRun, limits: AgentLimits) -> bool:
    """The token or cost cap passed: the run's failure set."""
    if limits.max_tokens is not None:
        spent = run.usage.prompt + run.usage.completion
        if spent > limits.max_tokens:
            run.failure = "max_tokens"
            run.failure_message = f"{spent} tokens spent, cap {limits.max_tokens}"
            return True
    cap = limits.max_cost_usd
    if cap is not None and run.cost_usd is not None and run.cost_usd > cap:
        run.failure = "max_cost"
        run.failure_message = f"${run.cost_usd:.4f} spent, cap ${cap:g}"
        return True
    return False


def _ends_chat(toolbox: Toolbox, calls: list[ToolCallRecord]) -> bool:
    """A successful call of a tool that ends the conversation (`Tool.ends_chat`)."""
    for call in calls:
        tool = toolbox.get(call.name) if call.ok else None
        if tool is not None and tool.ends_chat:
            return True
    return False


def _canonical(arguments: dict[str, Any], raw: str | None) -> str:
    try:
        return (
            json.dumps(arguments, sort_keys=True, default=str) if arguments or raw is None else raw
        )
    except (TypeError, ValueError):
        return repr(arguments)
