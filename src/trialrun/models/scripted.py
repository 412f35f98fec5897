"""The scripted model: replays turns from a YAML/JSON file, for tests and demos.

`scripted:PATH` where PATH holds `{tasks: {<task_id>: [turn, …]}, default: [turn, …]}`.
A turn is `{tool_calls: [{name, arguments}]}` and/or `{content: "…"}`, with optional
`delay_s` (sleep first), `error: infra | timeout` (raise InfraError / ModelTimeout),
`usage: {prompt, cached, completion}` and `cost_usd`.

Stateless: the turn played is the i-th of the task's list, i = the number of assistant
messages already in `messages`. Out of turns: the last content turn's text, no calls.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from trialrun.errors import InfraError, ModelTimeout, UserError
from trialrun.models._registry import model_provider
from trialrun.models._types import (
    Completion,
    CompletionParams,
    Message,
    ToolCall,
    ToolSpec,
    Usage,
)

_TURN_KEYS = {"tool_calls", "content", "delay_s", "error", "usage", "cost_usd"}
_CALL_KEYS = {"name", "arguments", "id"}


class _Turn:
    __slots__ = ("content", "calls", "delay_s", "error", "usage", "cost_usd")

    def __init__(self) -> None:
        self.content: str | None = None
        # (name, parsed arguments, arguments_error, raw text)
        self.calls: list[tuple[str, dict[str, Any], str | None, str]] = []
        self.delay_s = 0.0
        self.error: str | None = None
        self.usage: tuple[int, int, int] | None = None
        self.cost_usd: float | None = None


def _fail(path: Path, where: str, message: str) -> UserError:
    return UserError(
        f"{path}: {where}: {message}; see the scripted model format in docs/how-to/write-tasks.md"
    )


def _parse_turn(path: Path, where: str, raw: Any) -> _Turn:
    if not isinstance(raw, dict):
        raise _fail(path, where, f"a turn must be a mapping, got {type(raw).__name__}")
    unknown = set(raw) - _TURN_KEYS
    if unknown:
        raise _fail(path, where, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(_TURN_KEYS)}")
    turn = _Turn()
    if "content" in raw:
        if not isinstance(raw["content"], str):
            raise _fail(path, f"{where}.content", "must be a string")
        turn.content = raw["content"]
    calls = raw.get("tool_calls") or []
    if not isinstance(calls, list):
        raise _fail(path, f"{where}.tool_calls", "must be a list of {name, arguments}")
    for i, call in enumerate(calls):
        cwhere = f"{where}.tool_calls[{i}]"
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise _fail(path, cwhere, "a tool call needs a string 'name'")
        if set(call) - _CALL_KEYS:
            raise _fail(path, cwhere, f"unknown key(s) {sorted(set(call) - _CALL_KEYS)}")
        args = call.get("arguments", {})
        if args is None:
            args = {}
        if isinstance(args, dict):
            turn.calls.append((call["name"], dict(args), None, json.dumps(args)))
        elif isinstance(args, str):
            # a raw argument string, as a model would emit it: may be broken on purpose
            try:
                parsed = json.loads(args)
            except json.JSONDecodeError as exc:
                turn.calls.append((call["name"], {}, f"arguments are not valid JSON: {exc}", args))
                continue
            if isinstance(parsed, dict):
                turn.calls.append((call["name"], parsed, None, args))
            else:
                turn.calls.append((call["name"], {}, "arguments must be a JSON object", args))
        else:
            raise _fail(path, f"{cwhere}.arguments", "must be a mapping or a JSON string")
    if "content" not in raw and "tool_calls" not in raw and "error" not in raw:
        raise _fail(path, where, "a turn needs 'content' or 'tool_calls'")
    delay = raw.get("delay_s", 0)
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
        raise _fail(path, f"{where}.delay_s", "must be a number >= 0")
    turn.delay_s = float(delay)
    if "error" in raw:
        if raw["error"] not in ("infra", "timeout"):
            raise _fail(path, f"{where}.error", "must be 'infra' or 'timeout'")
        turn.error = raw["error"]
    if "usage" in raw:
        u = raw["usage"]
        if not isinstance(u, dict) or not all(
            isinstance(u.get(key, 0), int) for key in ("prompt", "cached", "completion")
        ):
            raise _fail(path, f"{where}.usage", "must be {prompt, cached, completion} integers")
        turn.usage = (int(u.get("prompt", 0)), int(u.get("cached", 0)), int(u.get("completion", 0)))
    if "cost_usd" in raw:
        cost = raw["cost_usd"]
        if isinstance(cost, bool) or not isinstance(cost, (int, float)):
            raise _fail(path, f"{where}.cost_usd", "must be a number")
        turn.cost_usd = float(cost)
    return turn


def _read(path: Path) -> Any:
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UserError(
            f"{path}:{line}: not UTF-8 text (byte {exc.start}); a scripted model file is "
            "YAML or JSON saved as UTF-8"
        ) from None
    except FileNotFoundError:
        raise UserError(
            "scripted model file not found; give scripted:PATH to an existing YAML or JSON "
            "file", place="--model", value=f"scripted:{path}",
        ) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the scripted model file ({exc.strerror})") from None
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(
                f"{path}:{exc.lineno}: invalid JSON ({exc.msg}); fix the syntax"
            ) from None
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return YAML(typ="safe", pure=True).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        at = f":{mark.line + 1}" if mark is not None else ""
        raise UserError(f"{path}{at}: invalid YAML ({exc.problem}); fix the syntax") from None
    except YAMLError as exc:
        raise UserError(f"{path}: invalid YAML ({exc}); fix the syntax") from None


def load_script(path: Path | str) -> tuple[dict[str, list[_Turn]], list[_Turn]]:
    """Parse and validate a script file → (turns per task, default turns)."""
    path = Path(path)
    data = _read(path)
    if not isinstance(data, dict) or not data or set(data) - {"tasks", "default"}:
        raise _fail(path, "top level", "expected a mapping with only 'tasks' and/or 'default'")
    tasks_raw = data.get("tasks") or {}
    if not isinstance(tasks_raw, dict):
        raise _fail(path, "tasks", "must map task ids to lists of turns")
    tasks: dict[str, list[_Turn]] = {}
    for task_id, turns in tasks_raw.items():
        if not isinstance(turns, list):
            raise _fail(path, f"tasks.{task_id}", "must be a list of turns")
        tasks[str(task_id)] = [
            _parse_turn(path, f"tasks.{task_id}[{i}]", t) for i, t in enumerate(turns)
        ]
    default_raw = data.get("default") or []
    if not isinstance(default_raw, list):
        raise _fail(path, "default", "must be a list of turns")
    default = [_parse_turn(path, f"default[{i}]", t) for i, t in enumerate(default_raw)]
    return tasks, default


class ScriptedModel:
    """Replays a script; see the module docstring."""

    provider = "scripted"

    def __init__(self, path: Path | str) -> None:
        self.model_id = str(path)
        self.path = Path(path)
        self._tasks, self._default = load_script(self.path)

    @property
    def task_ids(self) -> list[str]:
        return list(self._tasks)

    def covers(self, task_id: str) -> bool:
        """Whether the script has turns for `task_id` (its own, or `default`)."""
        return task_id in self._tasks or bool(self._default)

    def turns_for(self, task_id: str | None) -> list[_Turn]:
        if task_id is not None and task_id in self._tasks:
            return self._tasks[task_id]
        return self._default

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        turns = self.turns_for(params.task_id)
        index = sum(1 for m in messages if m.get("role") == "assistant")
        if index >= len(turns):
            last = next((t.content for t in reversed(turns) if t.content is not None), None)
            text = last or ""
            return Completion(text, [], Usage(0, 0, len(text) // 4), 0.0, None, "stop")
        turn = turns[index]
        if turn.delay_s:
            await asyncio.sleep(turn.delay_s)
        if turn.error == "infra":
            raise InfraError(f"scripted infra error (turn {index} of {self.model_id})")
        if turn.error == "timeout":
            raise ModelTimeout(f"scripted model timeout (turn {index} of {self.model_id})")
        calls = [
            ToolCall(f"call_{index}_{i}", name, args, err, raw)
            for i, (name, args, err, raw) in enumerate(turn.calls)
        ]
        content = turn.content
        if turn.usage is not None:
            usage = Usage(*turn.usage)
        else:
            usage = Usage(0, 0, len(content or "") // 4 + 8 * len(calls))
        return Completion(
            content, calls, usage, turn.delay_s, turn.cost_usd, "tool_calls" if calls else "stop"
        )

    async def aclose(self) -> None:
        return None


@model_provider("scripted")
def _scripted(model_id: str, options: dict[str, Any]) -> ScriptedModel:
    if not model_id:
        raise UserError(
            "needs a script file, e.g. scripted:examples/scripts/good.yaml",
            place="--model", value="scripted",
        )
    return ScriptedModel(model_id)
