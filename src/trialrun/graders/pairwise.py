"""`pairwise` grader: the response against a reference answer, asked in both orders.

Order 1 puts the response in position A, order 2 puts the reference in A. Each five-point
verdict is read from the response's side (win / tie / loss); a win or tie in either order
counts as correct (as OpenJarvis's WildChat scorer). Both verdicts and raw replies are
kept, so `trialrun judge bias` can measure how often swapping positions flips the outcome.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from trialrun.graders._judging import judge_unusable
from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader
from trialrun.judge import ask, pairwise_prompt, parse_pairwise


class PairwiseConfig(GraderConfig):
    reference: str = Field(min_length=1, description="the reference answer")
    criteria: str | None = None


# verdict token → outcome for the response, by the response's position
_WHEN_A = {
    "[[A>>B]]": "win",
    "[[A>B]]": "win",
    "[[A=B]]": "tie",
    "[[B>A]]": "loss",
    "[[B>>A]]": "loss",
}
_WHEN_B = {
    "[[A>>B]]": "loss",
    "[[A>B]]": "loss",
    "[[A=B]]": "tie",
    "[[B>A]]": "win",
    "[[B>>A]]": "win",
}


def combine(first: str | None, second: str | None) -> bool | None:
    """Outcomes (win/tie/loss/None) of both orders → passed: a win or tie in either order
    is correct; two losses are not; otherwise (a loss and a failed call) undetermined."""
    outcomes = (first, second)
    if any(o in ("win", "tie") for o in outcomes):
        return True
    if all(o == "loss" for o in outcomes):
        return False
    return None


@grader("pairwise", PairwiseConfig, needs_judge=True)
async def pairwise(config: PairwiseConfig, trial: TrialView) -> Verdict:
    base: dict[str, Any] = {"reference": config.reference, "criteria": config.criteria}
    unusable = judge_unusable(trial.judge, "pairwise")
    if unusable is not None:
        return Verdict(config.label, None, {**unusable, **base})
    response = trial.final_text or ""
    task_id = trial.task_id
    first, second = await asyncio.gather(
        ask(
            trial.judge,
            pairwise_prompt(trial.user_message, response, config.reference, config.criteria),
            parse_pairwise,
            task_id=task_id,
        ),
        ask(
            trial.judge,
            pairwise_prompt(trial.user_message, config.reference, response, config.criteria),
            parse_pairwise,
            task_id=f"{task_id}/swapped",
        ),
    )
    out_first = _WHEN_A.get(first.value) if first.value else None
    out_second = _WHEN_B.get(second.value) if second.value else None
    passed = combine(out_first, out_second)
    details: dict[str, Any] = {
        "type": "pairwise",
        **base,
        "judge_model": first.judge,
        "verdicts": {"response_first": first.value, "reference_first": second.value},
        "outcomes": {"response_first": out_first, "reference_first": out_second},
        "position_flip": (out_first != out_second) if out_first and out_second else None,
        "raw_replies": {"response_first": first.raw_replies, "reference_first": second.raw_replies},
        "prompt_sha256": {
            "response_first": first.prompt_sha256,
            "reference_first": second.prompt_sha256,
        },
        "cached": first.cached and second.cached,
        "constrained": first.constrained and second.constrained,
    }
    fallbacks = [o.constraint_fallback for o in (first, second) if o.constraint_fallback]
    if fallbacks:
        details["constraint_fallback"] = fallbacks[0]
    errors = {
        k: o.error for k, o in (("response_first", first), ("reference_first", second)) if o.error
    }
    skipped = first.skipped or second.skipped
    if errors and passed is None:
        details["judge_error"] = "; ".join(f"{k}: {v}" for k, v in errors.items())
    elif errors:
        details["judge_errors"] = errors
    if skipped and passed is None:
        details["judge_skipped"] = skipped
    return Verdict(config.label, passed, details)
