"""One entry of a τ-bench results file, checked: `{task_id, trial, reward, info, traj}`.

`info.task` is the task as τ-bench ran it (user_id, instruction, actions, outputs);
`info.reward_info` is None when τ-bench cut the episode at its step limit (no reward
computed, scored 0); `info.error` is set when τ-bench's run of the trial raised.
`traj` is the OpenAI-chat conversation: system policy, user, assistant messages (with
`tool_calls`: `{id, function: {name, arguments}}`, arguments a JSON string), tool replies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.core import Message, ToolCallRecord
from trialrun.errors import UserError

FIX = "fix that entry or restore the file τ-bench wrote"


@dataclass(frozen=True, slots=True)
class RecordedTask:
    """The task as the results file recorded it (`info.task`)."""

    user_id: str
    instruction: str
    actions: tuple[tuple[str, str], ...]  # (name, kwargs as canonical JSON)
    outputs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TauTrial:
    index: int  # the entry's place in the file's list
    task_id: int
    trial: int
    reward: float
    traj: tuple[Message, ...]
    task: RecordedTask | None
    ended: bool  # False: τ-bench cut the episode at its step limit (no reward_info)
    error: str | None  # τ-bench's run of the trial raised (info.error)
    reward_details: dict[str, Any]  # info.reward_info.info (r_actions, r_outputs, …)

    @property
    def solved(self) -> bool:
        return self.reward == 1.0


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _problem(path: Path, index: int, what: str) -> UserError:
    return UserError(f"{path}: entry {index}: {what}; {FIX}")


def _recorded_task(path: Path, index: int, task: Any) -> RecordedTask | None:
    if task is None:
        return None
    if not isinstance(task, dict):
        raise _problem(path, index, "info.task must be an object {user_id, instruction, "
                       "actions, outputs}")
    actions = task.get("actions") or []
    if not isinstance(actions, list) or not all(
        isinstance(a, dict) and isinstance(a.get("name"), str) for a in actions
    ):
        raise _problem(path, index, "info.task.actions must be a list of {name, kwargs}")
    outputs = task.get("outputs") or []
    if not isinstance(outputs, list):
        raise _problem(path, index, "info.task.outputs must be a list of strings")
    return RecordedTask(
        user_id=str(task.get("user_id") or ""),
        instruction=str(task.get("instruction") or ""),
        actions=tuple((a["name"], canonical(a.get("kwargs") or {})) for a in actions),
        outputs=tuple(str(o) for o in outputs),
    )


def _traj(path: Path, index: int, traj: Any) -> tuple[Message, ...]:
    if not isinstance(traj, list):
        raise _problem(path, index, "traj must be a list of chat messages")
    for place, message in enumerate(traj):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise _problem(path, index, f"traj[{place}] must be a message {{role, content}}")
        calls = message.get("tool_calls")
        if calls is not None and not (
            isinstance(calls, list) and all(isinstance(c, dict) for c in calls)
        ):
            raise _problem(path, index, f"traj[{place}].tool_calls must be a list of objects")
    return tuple(traj)


def read_trial(path: Path, index: int, item: Any) -> TauTrial:
    """The checked trial of entry `index` (one-line UserError naming entry and key)."""
    if not isinstance(item, dict):
        raise _problem(path, index, f"expected an object {{task_id, trial, reward, info, "
                       f"traj}}, got {type(item).__name__}")
    missing = [k for k in ("task_id", "reward", "traj") if k not in item]
    if missing:
        raise _problem(path, index, f"missing {', '.join(missing)}")
    task_id, trial = item["task_id"], item.get("trial", 0)
    if not _whole(task_id):
        raise _problem(path, index, f"task_id must be a whole number >= 0 (got {task_id!r})")
    if not _whole(trial):
        raise _problem(path, index, f"trial must be a whole number >= 0 (got {trial!r})")
    reward = item["reward"]
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not 0 <= reward <= 1:
        raise _problem(path, index, f"reward must be a number from 0 to 1 (got {reward!r})")
    info = item.get("info") or {}
    if not isinstance(info, dict):
        raise _problem(path, index, "info must be an object")
    reward_info = info.get("reward_info")
    if reward_info is not None and not isinstance(reward_info, dict):
        raise _problem(path, index, "info.reward_info must be an object or null")
    details = (reward_info or {}).get("info")
    error = info.get("error")
    return TauTrial(
        index=index,
        task_id=task_id,
        trial=trial,
        reward=float(reward),
        traj=_traj(path, index, item["traj"]),
        task=_recorded_task(path, index, info.get("task")),
        ended=reward_info is not None,
        error=str(error) if error else None,
        reward_details=dict(details) if isinstance(details, dict) else {},
    )


def tool_calls(traj: tuple[Message, ...]) -> list[ToolCallRecord]:
    """Each recorded tool call with its arguments and result; `ok` False when τ-bench's
    tool answered `Error: …` (or no answer was recorded)."""
    results = {
        m.get("tool_call_id"): m.get("content")
        for m in traj if m.get("role") == "tool"
    }
    out: list[ToolCallRecord] = []
    for message in traj:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call.get("function"), dict) else call
            name = str(function.get("name") or "")
            arguments = parse_arguments(function.get("arguments"))
            result = results.get(call.get("id"))
            text = result if isinstance(result, str) else ""
            ok = isinstance(result, str) and not text.startswith("Error")
            out.append(ToolCallRecord(name, arguments, ok, text))
    return out


def parse_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw or "{}")
        except ValueError:
            return {"_unparsed": raw}
        return parsed if isinstance(parsed, dict) else {"_unparsed": raw}
    return {}
