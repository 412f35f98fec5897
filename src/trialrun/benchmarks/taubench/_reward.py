"""τ-bench's reward: 1 when the final database equals the one the task's ground-truth
actions leave on a fresh copy (compared by the hash of the canonical form) and every
required output appears in one of the agent's replies (case-insensitive, commas in the
reply ignored); else 0, with the reason."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from trialrun.benchmarks.taubench._state import MAX_DIFFERENCES, TauState, differences
from trialrun.benchmarks.taubench._types import TauReward, TauTask

if TYPE_CHECKING:
    from trialrun.benchmarks.taubench._domain import TauDomain


def output_found(output: str, replies: Sequence[str]) -> bool:
    wanted = output.lower()
    return any(wanted in reply.lower().replace(",", "") for reply in replies)


def score(
    domain: TauDomain, task: TauTask, state: TauState, replies: Sequence[str]
) -> TauReward:
    """The reward of a finished episode: `state` is the database it left, `replies` the
    agent's messages to the user."""
    matches = state.digest() == domain.expected_digest(task)
    diffs: tuple[str, ...] = ()
    reasons: list[str] = []
    if not matches:
        diffs = tuple(differences(domain.expected_state(task).tables, state.tables))
        shown = "; ".join(diffs[:MAX_DIFFERENCES])
        more = f" (+{len(diffs) - MAX_DIFFERENCES} more)" if len(diffs) > MAX_DIFFERENCES else ""
        reasons.append(f"the database differs from the ground truth: {shown}{more}")
    missing = tuple(o for o in task.outputs if not output_found(o, replies))
    if missing:
        reasons.append("missing output(s) in the replies: " + ", ".join(map(repr, missing)))
    reward = 1.0 if matches and not missing else 0.0
    return TauReward(reward, "; ".join(reasons), matches, missing, diffs)
