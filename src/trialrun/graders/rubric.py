"""`llmRubric` grader: the judge scores the response on a scale; passed = score ≥ threshold."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field, model_validator

from trialrun.graders._judging import judge_unusable, outcome_details
from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader
from trialrun.judge import ask, parse_score, rubric_prompt


class RubricConfig(GraderConfig):
    rubric: str = Field(min_length=1)
    scale: tuple[int, int] = (1, 5)
    # Default: the middle of the scale, rounded up (3 on [1, 5]).
    threshold: float | None = None

    @model_validator(mode="after")
    def _check(self) -> RubricConfig:
        lo, hi = self.scale
        if lo >= hi:
            raise ValueError(f"scale [{lo}, {hi}]: the minimum must be below the maximum")
        if self.threshold is None:
            self.threshold = float(math.ceil((lo + hi) / 2))
        if not lo <= self.threshold <= hi:
            raise ValueError(f"threshold {self.threshold:g} is outside the scale [{lo}, {hi}]")
        return self


@grader("llmRubric", RubricConfig, needs_judge=True)
async def llm_rubric(config: RubricConfig, trial: TrialView) -> Verdict:
    lo, hi = config.scale
    base: dict[str, Any] = {
        "rubric": config.rubric,
        "scale": [lo, hi],
        "threshold": config.threshold,
    }
    unusable = judge_unusable(trial.judge, "llmRubric")
    if unusable is not None:
        return Verdict(config.label, None, {**unusable, **base})

    def parse(reply: str | None) -> dict[str, Any] | None:
        parsed = parse_score(reply, lo, hi)
        return None if parsed is None else {"score": parsed[0], "reasoning": parsed[1]}

    response = trial.conversation or trial.final_text or ""  # the whole chat, if any
    prompt = rubric_prompt(trial.user_message, response, config.rubric, lo, hi)
    outcome = await ask(trial.judge, prompt, parse, task_id=trial.task_id)
    value = outcome.value or {}
    score = value.get("score")
    details = outcome_details(
        "llmRubric", outcome, **base, score=score, reasoning=value.get("reasoning")
    )
    passed = None if score is None else score >= (config.threshold or 0)
    return Verdict(config.label, passed, details)
