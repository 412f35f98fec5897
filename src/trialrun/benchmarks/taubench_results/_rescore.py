"""Rescoring a recorded trial in trialrun's τ-bench environment.

The trial's recorded tool calls are replayed, in order, on a fresh copy of the domain's
database (the first call of each assistant message, as τ-bench's tool-calling agent runs
them, up to a hand-off to a human agent), then scored with τ-bench's reward against the
environment's task of the same id, with the agent's replies. An episode τ-bench cut at
its step limit, or whose run raised, scores 0, as τ-bench scored it.

The recorded task (`info.task`) must be the environment's: a different instruction,
ground truth or outputs (another version of the task file, another split) is a mismatch,
told apart from a disagreement of the rewards.
"""

from __future__ import annotations

from dataclasses import dataclass

from trialrun.benchmarks.taubench import (
    TERMINATING_TOOL,
    TauDomain,
    TauTask,
    agent_replies,
    score,
)
from trialrun.benchmarks.taubench_results._trial import (
    RecordedTask,
    TauTrial,
    canonical,
    parse_arguments,
)


@dataclass(frozen=True, slots=True)
class Rescored:
    """trialrun's reward for one trial, beside the recorded one."""

    task_id: int
    trial: int
    recorded: float
    reward: float | None  # None: the task does not match the environment's (`mismatch`)
    reason: str
    mismatch: str | None = None
    reworded: bool = False

    @property
    def agrees(self) -> bool:
        return self.mismatch is None and self.reward == self.recorded

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"task_id": self.task_id, "trial": self.trial,
                                  "recorded": self.recorded, "trialrun": self.reward,
                                  "reason": self.reason}
        if self.mismatch is not None:
            out["mismatch"] = self.mismatch
        return out


@dataclass(frozen=True, slots=True)
class TaskCheck:
    """The recorded task against the environment's: `mismatch` says what of the ground
    truth differs (None: the same); `reworded`: only the instruction's text differs."""

    mismatch: str | None = None
    reworded: bool = False


def check_task(domain: TauDomain, task_id: int, recorded: RecordedTask | None) -> TaskCheck:
    """Whether the trial can be rescored against the environment's task of its id (a trial
    without a recorded task is taken at its id)."""
    if task_id >= len(domain.tasks):
        return TaskCheck(f"no task {task_id} in {domain.name} {domain.split} (it has "
                         f"{len(domain.tasks)}); the results file is from another split or "
                         "version")
    if recorded is None:
        return TaskCheck()
    task: TauTask = domain.tasks[task_id]
    actions = tuple((a.name, canonical(dict(a.kwargs))) for a in task.actions)
    differs = [
        name for name, same in (
            ("user_id", recorded.user_id == task.user_id),
            ("ground-truth actions", recorded.actions == actions),
            ("required outputs", recorded.outputs == tuple(task.outputs)),
        ) if not same
    ]
    reworded = recorded.instruction != task.instruction
    if not differs:
        return TaskCheck(None, reworded)
    return TaskCheck(f"the recorded task {task_id} differs from {domain.name} {domain.split} "
                     f"task {task_id} in its {', '.join(differs)} (another version of the "
                     "task file?)", reworded)


def rescore(domain: TauDomain, trial: TauTrial, check: TaskCheck) -> Rescored:
    """trialrun's reward for the recorded trial (`check` from `check_task`)."""
    if check.mismatch is not None:
        return Rescored(trial.task_id, trial.trial, trial.reward, None, check.mismatch,
                        check.mismatch, check.reworded)
    if trial.error is not None or not trial.ended:
        why = "its run raised" if trial.error is not None else "it never ended (step limit)"
        return Rescored(trial.task_id, trial.trial, trial.reward, 0.0,
                        f"the episode scores 0: {why}", reworded=check.reworded)
    state = domain.fresh_state()
    for message in trial.traj:
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            continue
        first = calls[0]
        function = first.get("function") if isinstance(first.get("function"), dict) else first
        name = str(function.get("name") or "")
        if name == TERMINATING_TOOL:
            break
        state.invoke(name, parse_arguments(function.get("arguments")))
    messages = list(trial.traj)
    result = score(domain, domain.tasks[trial.task_id], state, agent_replies(messages, ""))
    return Rescored(trial.task_id, trial.trial, trial.reward, result.reward,
                    result.reason or "database and outputs match the ground truth",
                    reworded=check.reworded)
