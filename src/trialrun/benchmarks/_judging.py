"""Judge questions the scorers ask, through `trialrun.judge` (blind prompts, strict
reply parsing, one retry, the verdict cache), and the LLM-judge scorer base."""

from __future__ import annotations

import re
from typing import Any

from trialrun.benchmarks._types import Benchmark, Record, ScoreResult
from trialrun.judge import (
    NO_JUDGE_MESSAGE,
    Prompt,
    ask,
    pairwise_prompt,
    parse_pairwise,
    parse_yes_no,
    yes_no_prompt,
)
from trialrun.models import ReplyConstraint

LETTER_SYSTEM = (
    "You read an answer to a multiple-choice question and report which option letter it "
    "chooses. You do not solve the question yourself."
)


def judge_details(outcome: Any) -> dict[str, Any]:
    """The judge's part of a record's metadata (model, replies, cache hit, errors)."""
    return {
        f"judge_{k}" if not k.startswith("judge") else k: v for k, v in outcome.details().items()
    }


async def ask_equivalent(
    judge: Any, record: Record, answer: str, criterion: str
) -> tuple[bool | None, dict[str, Any]]:
    """YES/NO: does `answer` meet `criterion`? (None: no judge, or no verdict)."""
    if judge is None:
        return None, {"judge_skipped": NO_JUDGE_MESSAGE}
    prompt = yes_no_prompt(record.problem, answer, criterion)
    outcome = await ask(judge, prompt, parse_yes_no, task_id=record.task_id)
    return outcome.value, judge_details(outcome)


def letter_prompt(question: str, answer: str, letters: list[str]) -> Prompt:
    choices = (*letters, "NONE")
    user = (
        f"<question>\n{question}\n</question>\n\n<answer>\n{answer}\n</answer>\n\n"
        f"Which option letter ({', '.join(letters)}) does the answer choose? Reply with the "
        "letter only, or NONE if it chooses no option or several."
    )
    retry = f"Reply with exactly one of: {', '.join(choices)}."
    reply = ReplyConstraint("choice_letter", {"enum": list(choices)}, tuple(choices))
    return Prompt(LETTER_SYSTEM, user, retry, reply)


def _letter_parser(letters: list[str]) -> Any:
    def parse(reply: str | None) -> str | None:
        if not reply:
            return None
        text = re.sub(r"[\s*`\"'().:]", "", reply).upper()
        return text if text in letters or text == "NONE" else None

    return parse


async def ask_letter(
    judge: Any, record: Record, answer: str, letters: list[str]
) -> tuple[str | None, dict[str, Any]]:
    """The option letter the judge reads in `answer`: a letter, "NONE", or None (no judge
    or no verdict)."""
    if judge is None:
        return None, {"judge_skipped": NO_JUDGE_MESSAGE}
    prompt = letter_prompt(record.problem, answer, letters)
    outcome = await ask(judge, prompt, _letter_parser(letters), task_id=record.task_id)
    return outcome.value, judge_details(outcome)


# the model's outcome for each pairwise verdict, by the model's position
_OUTCOME = {
    "A": {
        "[[A>>B]]": "win",
        "[[A>B]]": "win",
        "[[A=B]]": "tie",
        "[[B>A]]": "loss",
        "[[B>>A]]": "loss",
    },
    "B": {
        "[[A>>B]]": "loss",
        "[[A>B]]": "loss",
        "[[A=B]]": "tie",
        "[[B>A]]": "win",
        "[[B>>A]]": "win",
    },
}
POINTS = {"win": 1.0, "tie": 0.5, "loss": 0.0}


async def ask_pairwise(
    judge: Any, record: Record, answer: str, other: str, criteria: str | None = None
) -> tuple[list[str | None], dict[str, Any]]:
    """The model's outcome (win/tie/loss, None undetermined) against `other`, judged in
    both orders: the model's answer first, then second."""
    if judge is None:
        return [None, None], {"judge_skipped": NO_JUDGE_MESSAGE}
    outcomes: list[str | None] = []
    details: dict[str, Any] = {}
    for position, (a, b) in (("A", (answer, other)), ("B", (other, answer))):
        outcome = await ask(
            judge,
            pairwise_prompt(record.problem, a, b, criteria),
            parse_pairwise,
            task_id=record.task_id,
        )
        verdict = outcome.value
        outcomes.append(_OUTCOME[position].get(verdict) if verdict else None)
        order = "model_first" if position == "A" else "model_second"
        details[order] = {"verdict": verdict, **judge_details(outcome)}
    return outcomes, details


class LLMJudgeScorer(Benchmark):
    """A benchmark scored by the judge alone: YES/NO on `criterion(record)`."""

    def criterion(self, record: Record) -> str:
        raise NotImplementedError

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        if not answer.strip():
            return ScoreResult(False, 0.0, {"reason": "empty_answer"})
        value, details = await ask_equivalent(judge, record, answer, self.criterion(record))
        if value is None:
            reason = "no_judge" if judge is None else "judge_undetermined"
            return ScoreResult(None, None, {"reason": reason, **details})
        return ScoreResult(value, 1.0 if value else 0.0, details)
