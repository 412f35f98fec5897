"""`judge` grader: a separate judge model answers YES/NO to one criterion, blind."""

from __future__ import annotations

from pydantic import Field

from trialrun.graders._judging import judge_unusable, outcome_details
from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader
from trialrun.judge import ask, parse_yes_no, yes_no_prompt


class JudgeConfig(GraderConfig):
    criteria: str = Field(min_length=1, description="what the response must do, in prose")


@grader("judge", JudgeConfig, needs_judge=True)
async def judge(config: JudgeConfig, trial: TrialView) -> Verdict:
    unusable = judge_unusable(trial.judge, "judge")
    if unusable is not None:
        return Verdict(config.label, None, {**unusable, "criteria": config.criteria})
    response = trial.conversation or trial.final_text or ""  # the whole chat, if any
    prompt = yes_no_prompt(trial.user_message, response, config.criteria)
    outcome = await ask(trial.judge, prompt, parse_yes_no, task_id=trial.task_id)
    verdict = None if outcome.value is None else ("YES" if outcome.value else "NO")
    details = outcome_details("judge", outcome, criteria=config.criteria, verdict=verdict)
    return Verdict(config.label, outcome.value, details)
