"""A τ-bench trial as trialrun's results line and transcript.

solve: the recorded reward is 1 (τ-bench's success, what its pass^k counts).
pass (the run completed): τ-bench ran the episode to its end; a trial it cut at its step
limit (no reward computed) or whose run raised is not passed (`error.kind` max_turns or
agent_error), as trialrun scores its own τ-bench episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trialrun.benchmarks._tasks import task_id_for
from trialrun.benchmarks.taubench_results._trial import TauTrial, tool_calls
from trialrun.core import Message
from trialrun.graders import trajectory_figures
from trialrun.rundir import ResultLine, Transcript

BENCHMARK = "taubench"
RECORDED_GRADER = "taubench-recorded"  # the verdict carrying the file's reward


@dataclass(frozen=True, slots=True)
class Naming:
    """How the imported run names its model and tasks."""

    model: str  # provider:model, as `trialrun run` labels a model
    domain: str | None  # airline, retail; None: unknown (task ids `taubench-<id>`)
    split: str = "test"

    @property
    def provider(self) -> str:
        return self.model.partition(":")[0]

    def task_id(self, tau_id: int) -> str:
        """The id trialrun's own `taubench` benchmark gives the task, so runs compare."""
        record = f"{self.domain}-{self.split}-{tau_id}" if self.domain else str(tau_id)
        return task_id_for(BENCHMARK, record)


def _error(trial: TauTrial) -> dict[str, Any] | None:
    if trial.error is not None:
        return {"kind": "agent_error", "message": f"τ-bench's run raised: {trial.error}"[:2000]}
    if not trial.ended:
        return {"kind": "max_turns", "message": "τ-bench cut the episode at its step limit "
                "(no reward computed; it scored 0)"}
    return None


def _final_text(traj: tuple[Message, ...]) -> str:
    for message in reversed(traj):
        if message.get("role") == "assistant" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def _first_user(traj: tuple[Message, ...]) -> str:
    for message in traj:
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def recorded_verdict(trial: TauTrial) -> dict[str, Any]:
    details: dict[str, Any] = {"reward": trial.reward, **trial.reward_details,
                               "source": "the τ-bench results file"}
    return {"grader": RECORDED_GRADER, "passed": trial.solved, "details": details}


def convert(trial: TauTrial, naming: Naming) -> tuple[ResultLine, Transcript]:
    """The trial's results line (its `transcript` and offset set by the writer) and
    transcript."""
    calls = tool_calls(trial.traj)
    final_text = _final_text(trial.traj)
    error = _error(trial)
    verdicts = [recorded_verdict(trial)]
    task_id = naming.task_id(trial.task_id)
    messages = [dict(m) for m in trial.traj]
    transcript = Transcript(
        task_id=task_id,
        model=naming.model,
        trial=trial.trial,
        messages=messages,
        turns=[],
        final_text=final_text,
        tool_results=[c.result for c in calls],
        verdicts=verdicts,
        error=error,
        extra={"tau_task_id": trial.task_id},
    )
    figures = trajectory_figures(calls, final_text)
    line = ResultLine(
        task_id=task_id,
        model=naming.model,
        trial=trial.trial,
        passed=error is None,
        solve=trial.solved,
        provider=naming.provider,
        error=error,
        verdicts=verdicts,
        tool_calls=[c.as_dict() for c in calls],
        turns=sum(1 for m in trial.traj if m.get("role") == "assistant"),
        repeated_calls=figures["repeated_calls"],
        tool_errors=figures["tool_errors"],
        recovered=figures["recovered"],
        extra={
            "final_text": final_text,
            "user_message": _first_user(trial.traj),
            "tau_task_id": trial.task_id,
            "tau_reward": trial.reward,
            "imported_entry": trial.index,
        },
    )
    return line, transcript
