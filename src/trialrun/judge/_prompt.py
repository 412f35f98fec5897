"""Judge prompts and the strict reply formats they ask for.

Every prompt is blind: it carries the user request, the response(s) and the criterion or
rubric — never the model id or provider of the system under test. Prompts are plain
(system, user) pairs; their sha256 keys the verdict cache, so any wording change here
invalidates cached verdicts (on purpose).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from trialrun.models import ReplyConstraint

YES_NO_SYSTEM = (
    "You are a strict grader. You read a user's request, an assistant's response and one "
    "criterion, and decide whether the response meets the criterion. Judge only the "
    "criterion. Reply with exactly one word: YES or NO."
)
YES_NO_RETRY = "Answer with exactly YES or NO."

RUBRIC_SYSTEM = (
    "You are a strict grader. You read a user's request, an assistant's response and a "
    "rubric, and score the response against the rubric on an integer scale. Explain your "
    "reasoning briefly, then end with a last line of the exact form `SCORE: n`."
)

PAIRWISE_SYSTEM = (
    "You are an impartial judge. You compare two assistant responses, A and B, to the same "
    "user request and decide which one is better. Do not let the order of the responses, "
    "their length or their style influence you. Explain briefly, then end with exactly one "
    "verdict of: [[A>>B]] (A is much better), [[A>B]] (A is better), [[A=B]] (a tie), "
    "[[B>A]] (B is better), [[B>>A]] (B is much better)."
)
PAIRWISE_RETRY = (
    "Answer with exactly one verdict of [[A>>B]], [[A>B]], [[A=B]], [[B>A]] or [[B>>A]]."
)
PAIRWISE_VERDICTS = ("[[A>>B]]", "[[A>B]]", "[[A=B]]", "[[B>A]]", "[[B>>A]]")
RUBRIC_REASON_CHARS = 200

# Reply constraints: the same contract as the prompt asks for, in a provider's native form.
YES_NO_REPLY = ReplyConstraint("yes_no", {"enum": ["YES", "NO"]}, ("YES", "NO"))
PAIRWISE_REPLY = ReplyConstraint(
    "pairwise_verdict", {"enum": list(PAIRWISE_VERDICTS)}, PAIRWISE_VERDICTS
)


def rubric_reply(lo: int, hi: int) -> ReplyConstraint:
    """`{"reason": short text, "score": n}` with n an integer in [lo, hi]; reason first."""
    schema = {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "maxLength": RUBRIC_REASON_CHARS},
            "score": {"enum": list(range(lo, hi + 1))},
        },
        "required": ["reason", "score"],
        "additionalProperties": False,
    }
    return ReplyConstraint("rubric_score", schema)


@dataclass(frozen=True, slots=True)
class Prompt:
    system: str
    user: str
    retry: str
    # Not part of the hash: the cache key records separately whether it was sent.
    reply: ReplyConstraint | None = None

    @property
    def sha256(self) -> str:
        """The prompt's hash: the cache key part that is not the judge model."""
        blob = json.dumps([self.system, self.user], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


def _block(tag: str, text: str) -> str:
    return f"<{tag}>\n{text}\n</{tag}>"


def yes_no_prompt(user_message: str, response: str, criteria: str) -> Prompt:
    user = "\n\n".join(
        [
            _block("user_request", user_message),
            _block("response", response),
            _block("criterion", criteria),
            "Does the response meet the criterion? Answer YES or NO.",
        ]
    )
    return Prompt(YES_NO_SYSTEM, user, YES_NO_RETRY, YES_NO_REPLY)


def rubric_prompt(user_message: str, response: str, rubric: str, lo: int, hi: int) -> Prompt:
    user = "\n\n".join(
        [
            _block("user_request", user_message),
            _block("response", response),
            _block("rubric", rubric),
            f"Score the response from {lo} (worst) to {hi} (best) against the rubric. "
            f"Give your reasoning, then a last line `SCORE: n` with n an integer from "
            f"{lo} to {hi}.",
        ]
    )
    retry = f"End with a last line of exactly the form `SCORE: n`, n an integer from {lo} to {hi}."
    return Prompt(RUBRIC_SYSTEM, user, retry, rubric_reply(lo, hi))


def pairwise_prompt(user_message: str, a: str, b: str, criteria: str | None) -> Prompt:
    parts = [_block("user_request", user_message), _block("response_A", a), _block("response_B", b)]
    if criteria:
        parts.append(_block("criterion", criteria))
    parts.append("Which response is better? End with exactly one verdict.")
    return Prompt(PAIRWISE_SYSTEM, "\n\n".join(parts), PAIRWISE_RETRY, PAIRWISE_REPLY)


# --- reply parsing: anything outside the contract is not a verdict ---


def constrained_text(reply: str | None) -> str | None:
    """A constrained (JSON) reply rewritten as the plain contract text the strict parsers
    read: `"YES"` → `YES`, `{"reason": r, "score": n}` → `r\nSCORE: n`; anything else
    is returned unchanged (the parser then decides)."""
    if not reply:
        return reply
    try:
        value: Any = json.loads(reply)
    except ValueError:
        return reply
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"reason", "score"}:
        score = value["score"]
        if isinstance(score, int | float) and not isinstance(score, bool):
            return f"{str(value['reason']).strip()}\nSCORE: {score}"
    return reply


_YES_NO = re.compile(r"^[\W_]*(yes|no)[\W_]*$", re.IGNORECASE)


def parse_yes_no(reply: str | None) -> bool | None:
    """YES → True, NO → False, possibly wrapped in whitespace, punctuation or markup
    (`"yes."`, `"**NO**"`); anything else (a sentence, "YES and NO", "") → None."""
    if not reply:
        return None
    match = _YES_NO.match(reply.strip())
    if match is None:
        return None
    return match.group(1).lower() == "yes"


_SCORE = re.compile(r"^[\W_]*score[\W_]*:\s*\**\s*(-?\d+(?:\.\d+)?)\s*[\W_]*$", re.IGNORECASE)


def parse_score(reply: str | None, lo: int, hi: int) -> tuple[float, str] | None:
    """The last non-empty line must be `SCORE: n` with lo ≤ n ≤ hi; returns (n, reasoning)."""
    if not reply:
        return None
    lines = [line for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return None
    match = _SCORE.match(lines[-1].strip())
    if match is None:
        return None
    value = float(match.group(1))
    if not lo <= value <= hi:
        return None
    reasoning = "\n".join(lines[:-1]).strip()
    return (int(value) if value.is_integer() else value), reasoning


_PAIR = re.compile(r"\[\[(A>>B|A>B|A=B|B>A|B>>A)\]\]")


def parse_pairwise(reply: str | None) -> str | None:
    """Exactly one distinct five-point verdict token in the reply, else None."""
    if not reply:
        return None
    found = {f"[[{m}]]" for m in _PAIR.findall(reply)}
    return found.pop() if len(found) == 1 else None
