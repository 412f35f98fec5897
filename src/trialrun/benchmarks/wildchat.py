"""WildChat: real user conversations (allenai/WildChat-1M), English single-turn only.

Columns: conversation_hash, model, conversation ([{role, content, language, …}]), turn,
language. Rows that are not English or not one user turn plus one assistant reply are
dropped. The judge compares the model's reply with the original reply in both orders;
as in the seed, the reply is correct when it wins or ties in either comparison (`score`
is the mean of the two outcomes' points: win 1, tie 0.5, loss 0). Every record's
`subject` is "conversation".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.benchmarks._judging import POINTS, ask_pairwise
from trialrun.benchmarks._rows import as_list, first, text
from trialrun.benchmarks._types import Benchmark, DatasetSource, Record, ScoreResult, benchmark

CRITERIA = "helpfulness, correctness and relevance to the user's request"


def single_turn(row: dict[str, Any]) -> tuple[str, str] | None:
    """(user message, assistant reply) of an English single-turn conversation, else None."""
    conversation = as_list(row.get("conversation"))
    turn = row.get("turn")
    if turn is not None and str(turn) != "1":
        return None
    if len(conversation) != 2 or not all(isinstance(m, dict) for m in conversation):
        return None
    user, assistant = conversation
    if user.get("role") != "user" or assistant.get("role") != "assistant":
        return None
    language = row.get("language") or user.get("language")
    if text(language).strip().lower() != "english":
        return None
    prompt, reply = text(user.get("content")).strip(), text(assistant.get("content")).strip()
    return (prompt, reply) if prompt and reply else None


@benchmark("wildchat")
class WildChat(Benchmark):
    description = "real chat requests, pairwise-judged against the original reply"
    default_source = DatasetSource("allenai/WildChat-1M", split="train")
    suite = "open_ended"
    category = "chat"

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record | None:
        pair = single_turn(row)
        if pair is None:
            return None
        return Record(
            record_id=text(first(row, "conversation_hash", "id")) or str(index),
            problem=pair[0],
            reference=pair[1],
            subject="conversation",
            metadata={"original_model": row.get("model")},
        )

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        if not answer.strip():
            return ScoreResult(False, 0.0, {"reason": "empty_answer"})
        outcomes, details = await ask_pairwise(
            judge, record, answer, text(record.reference), CRITERIA
        )
        meta = {"outcomes": outcomes, **details}
        if any(o is None for o in outcomes):
            reason = "no_judge" if judge is None else "judge_undetermined"
            return ScoreResult(None, None, {**meta, "reason": reason})
        score = sum(POINTS[o] for o in outcomes if o) / len(outcomes)
        return ScoreResult(any(o in ("win", "tie") for o in outcomes), score, meta)
