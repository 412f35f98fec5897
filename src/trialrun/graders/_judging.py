"""What the judge, llmRubric and pairwise graders share: the no-judge and unpinned checks."""

from __future__ import annotations

from typing import Any

from trialrun.core import is_unpinned
from trialrun.judge import NO_JUDGE_MESSAGE, JudgeOutcome, judge_spec


def judge_unusable(judge: Any, kind: str) -> dict[str, Any] | None:
    """Details for a skipped verdict when there is no usable judge, else None."""
    if judge is None:
        return {"type": kind, "judge_skipped": NO_JUDGE_MESSAGE}
    if is_unpinned(str(getattr(judge, "model_id", ""))):
        return {
            "type": kind,
            "judge_model": judge_spec(judge),
            "judge_skipped": "unpinned judge refused (-latest/-preview): pin a model id",
        }
    return None


def outcome_details(kind: str, outcome: JudgeOutcome, **extra: Any) -> dict[str, Any]:
    return {"type": kind, **extra, **outcome.details()}
