"""A Python callable as the agent: `--agent package.module:function`.

Called as `function(task_input, workspace, tools, model)`, sync (in a worker thread) or
async. `task_input` is a `TaskInput`; `tools` is a `RecordingTools` whose calls go through
the trial's Toolbox and are recorded for the graders (`tools.read_file(path="a.md")` or
`tools.call("read_file", path="a.md")`; in async code, `await` them); `model` is a
`RecordingModel` wrapping the run's model (None without `--model`) whose calls count as
turns, tokens and cost. Return a string (the final answer) or a dict
`{"final_text": str, "messages"?: [...]}`. An exception is the agent's failure
("agent_error", with the traceback's last line).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.agents._types import AgentLimits, AgentRun
from trialrun.agents.loop import user_message
from trialrun.core import Message, ToolCallRecord, ToolSpec, run_sync
from trialrun.errors import InfraError, ModelTimeout
from trialrun.models import Completion, CompletionParams

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import Task
    from trialrun.tools import Toolbox

DEFAULT_TIMEOUT_S = 300.0


@dataclass(slots=True)
class TaskInput:
    task_id: str
    prompt: str
    context_files: list[str] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    # the prompt with context files attached, as the built-in agent sends it
    user_message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # the task's other `inputs` keys

    def __getitem__(self, key: str) -> Any:  # dict-style access for convenience
        return getattr(self, key)


class _Bridge:
    """Runs coroutines on the trial's loop, from the loop (awaitable) or a worker thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def run(self, coro: Any) -> Any:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            return coro  # async agent: it awaits the coroutine
        if threading.current_thread() is threading.main_thread() and running is None:
            coro.close()
            raise RuntimeError("call tools from the agent function or its threads")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


class RecordingTools:
    """The trial's tools, recorded. Results are strings (error text when the call failed)."""

    def __init__(self, toolbox: Toolbox, run: AgentRun, bridge: _Bridge) -> None:
        self._toolbox = toolbox
        self._run = run
        self._bridge = bridge

    @property
    def names(self) -> list[str]:
        return self._toolbox.names

    def specs(self) -> list[ToolSpec]:
        """OpenAI function specs of the tools, to hand to a model."""
        return self._toolbox.specs()

    async def acall(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> str:
        args = {**(arguments or {}), **kwargs}
        result = await self._toolbox.call(name, args)
        self._run.tool_calls.append(ToolCallRecord(name, args, result.ok, result.content))
        call_id = f"call_{len(self._run.tool_calls)}"
        self._run.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        self._run.messages.append(
            {"role": "tool", "tool_call_id": call_id, "name": name, "content": result.content}
        )
        return result.content

    def call(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """A str in sync code; an awaitable in async code."""
        return self._bridge.run(self.acall(name, arguments, **kwargs))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._toolbox.get(name) is None:
            raise AttributeError(f"no tool '{name}'; available: {', '.join(self.names)}")
        return lambda **kwargs: self.call(name, **kwargs)


class RecordingModel:
    """The run's model, counting each call as a turn (tokens, latency, cost)."""

    def __init__(self, model: Model, run: AgentRun, bridge: _Bridge, task_id: str) -> None:
        self.model = model
        self.provider = model.provider
        self.model_id = model.model_id
        self._run = run
        self._bridge = bridge
        self._task_id = task_id

    async def acomplete(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None = None,
        params: CompletionParams | None = None,
    ) -> Completion:
        params = params or CompletionParams()
        if params.task_id is None:
            params.task_id = self._task_id
        started = time.perf_counter()
        completion = await self.model.complete(messages, tools or [], params)
        run = self._run
        run.turns += 1
        run.usage.add(completion.usage)
        if completion.cost_usd is not None:
            run.cost_usd = (run.cost_usd or 0.0) + completion.cost_usd
        run.turn_meta.append(
            {
                "turn": run.turns - 1,
                "latency_s": time.perf_counter() - started,
                "tokens": completion.usage.as_dict(),
                "cost_usd": completion.cost_usd,
            }
        )
        return completion

    def complete(
        self,
        messages: list[Message],
        tools: list[ToolSpec] | None = None,
        params: CompletionParams | None = None,
    ) -> Any:
        """A Completion in sync code; an awaitable in async code."""
        return self._bridge.run(self.acomplete(messages, tools, params))


def _last_line(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return lines[-1].strip() if lines else type(exc).__name__


class CallableAgent:
    def __init__(self, fn: Callable[..., Any], ref: str, timeout_s: float | None = None) -> None:
        self.fn = fn
        self.ref = ref
        self.timeout_s = timeout_s
        self.name = f"callable:{ref}"

    async def run(
        self,
        task: Task,
        workspace: Path | None,
        toolbox: Toolbox,
        model: Model | None,
        limits: AgentLimits,
    ) -> AgentRun:
        run = AgentRun()
        message = user_message(task, workspace)
        task_input = TaskInput(
            task_id=task.task_id,
            prompt=task.inputs.prompt,
            context_files=list(task.inputs.context_files),
            messages=[{"role": m.role, "content": m.content} for m in task.inputs.messages],
            user_message=message,
            extra=task.inputs.extra,
        )
        run.messages = [*task_input.messages, {"role": "user", "content": message}]
        bridge = _Bridge(asyncio.get_running_loop())
        tools = RecordingTools(toolbox, run, bridge)
        wrapped = RecordingModel(model, run, bridge, task.task_id) if model is not None else None
        timeout = limits.timeout_s or self.timeout_s or DEFAULT_TIMEOUT_S

        async def invoke() -> Any:
            if inspect.iscoroutinefunction(self.fn):
                return await self.fn(task_input, workspace, tools, wrapped)
            result = await run_sync(self.fn, task_input, workspace, tools, wrapped)
            return await result if inspect.isawaitable(result) else result

        try:
            if limits.within is not None:  # the trial budget (see AgentLimits)
                result = await limits.within(invoke())
            else:
                result = await asyncio.wait_for(invoke(), timeout)
        except TimeoutError:
            run.failure = "timeout"
            run.failure_message = f"agent {self.ref} timed out after {timeout:g}s"
            return run
        except ModelTimeout as exc:
            run.failure = "model_timeout"
            run.failure_message = str(exc) or "a model call timed out"
            return run
        except InfraError as exc:
            run.infra_error = str(exc) or "infrastructure error"
            return run
        except Exception as exc:
            run.failure = "agent_error"
            run.failure_message = f"{self.ref} raised {_last_line(exc)}"
            return run
        if isinstance(result, dict):
            run.final_text = str(result.get("final_text") or "")
            if isinstance(result.get("messages"), list):
                run.messages = list(result["messages"])
        elif result is None:
            run.final_text = ""
        else:
            run.final_text = str(result)
        if not run.messages or run.messages[-1].get("content") != run.final_text:
            run.messages.append({"role": "assistant", "content": run.final_text})
        return run
