"""Grader `taubench`: τ-bench's reward for a finished episode.

The trial's tool calls are replayed, in order, on a fresh copy of the database (the
tools are deterministic, so this is the database the trial left, whichever agent made
the calls and in whichever process; a refused call changed nothing and is skipped), then
scored against the task's ground truth. As in τ-bench, the episode ends at a hand-off
to a human agent: later calls and replies do not count. The agent's replies are its
messages to the user (assistant messages without tool calls).
"""

from __future__ import annotations

from typing import Any

from trialrun.benchmarks.taubench._domain import load_domain
from trialrun.benchmarks.taubench._reward import score
from trialrun.benchmarks.taubench._types import TERMINATING_TOOL
from trialrun.core import Message, ToolCallRecord, Verdict
from trialrun.graders import GraderConfig, TrialView, grader


class TauBenchConfig(GraderConfig):
    checkout: str
    domain: str
    split: str = "test"
    task_index: int


def counted_calls(calls: list[ToolCallRecord]) -> list[ToolCallRecord]:
    """The calls up to the first hand-off to a human."""
    out: list[ToolCallRecord] = []
    for call in calls:
        if call.name == TERMINATING_TOOL:
            break
        out.append(call)
    return out


def agent_replies(messages: list[Message], final_text: str) -> list[str]:
    """The agent's messages to the user, up to a hand-off (the final text when the agent
    kept no messages)."""
    replies: list[str] = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        calls: Any = message.get("tool_calls") or []
        if calls:
            names = [str((c.get("function") or {}).get("name", c.get("name"))) for c in calls]
            if TERMINATING_TOOL in names:
                break
            continue
        content = message.get("content")
        if isinstance(content, str) and content.strip():
            replies.append(content)
    if not messages and final_text:
        replies.append(final_text)
    return replies


def grade(config: TauBenchConfig, trial: TrialView) -> Verdict:
    domain = load_domain(config.checkout, config.domain, config.split)
    task = domain.task(config.task_index)
    state = domain.fresh_state()
    for call in counted_calls(trial.tool_calls):
        if call.ok:
            state.invoke(call.name, call.arguments)
    reward = score(domain, task, state, agent_replies(trial.messages, trial.final_text))
    details = {
        "reward": reward.reward,
        "reason": reward.reason or "database and outputs match the ground truth",
        "data_matches": reward.data_matches,
        "missing_outputs": list(reward.missing_outputs),
        "differences": list(reward.differences[:20]),
        "domain": config.domain,
        "task_index": config.task_index,
    }
    return Verdict(config.label, reward.solved, details)


grader("taubench", TauBenchConfig)(grade)
