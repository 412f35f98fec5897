"""SuperGPQA: graduate-level multiple choice in 285 disciplines (m-a-p/SuperGPQA).

Columns: uuid, question, options (list), answer (the option's text), answer_letter,
discipline, field, subfield, difficulty; a record's `subject` is its subfield (else its
field, else its discipline, else "general"), as in the seed. Options are lettered A, B,
C, …; the model is told "Respond with the correct letter only."; the letter is extracted
by rules first, then by the judge; metadata: reference_letter, candidate_letter,
valid_letters, and `reason` (missing_reference_letter, no_choice_letter_extracted) on
failure.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

from trialrun.benchmarks._judging import ask_letter
from trialrun.benchmarks._rows import as_list, first, text
from trialrun.benchmarks._types import Benchmark, DatasetSource, Record, ScoreResult, benchmark

INSTRUCTION = "Respond with the correct letter only."
LETTERS = string.ascii_uppercase


def lettered(options: list[Any]) -> str:
    return "\n".join(f"{LETTERS[i]}) {text(o)}" for i, o in enumerate(options[: len(LETTERS)]))


def extract_letter(answer: str, valid: list[str]) -> str | None:
    """The option letter `answer` chooses, by rules; None when it names none (or several)."""
    if not answer or not valid:
        return None
    allowed = "".join(valid)
    cleaned = answer.strip()
    bare = re.sub(r"^[\s*_`\"'(\[]+|[\s*_`\"')\].:]+$", "", cleaned)
    if len(bare) == 1 and bare.upper() in valid:
        return bare.upper()
    patterns = [
        rf"\\boxed\{{\s*\(?([{allowed}])\)?\s*\}}",
        rf"(?i:(?:final\s+)?answer)\s*(?i:is|:)?\s*[:\-]?\s*(?i:option\s*)?[\(\[*\s]*"
        rf"([{allowed}])\b",
        rf"(?i:correct\s+(?:option|choice|letter))\s*(?i:is|:)\s*[\(\[*\s]*([{allowed}])\b",
        rf"^\s*[\(\[*]*([{allowed}])[\)\].:]",
        rf"\b(?i:option)\s+\(?([{allowed}])\)?\b",
    ]
    # letters in parentheses anywhere: "(A) or (B)" names two, so no rule may pick one
    alone = set(re.findall(rf"\(([{allowed}])\)", cleaned))
    for pattern in patterns:
        letters: set[str] = set(re.findall(pattern, cleaned, flags=re.MULTILINE))
        if len(letters) == 1 and alone <= letters:
            return letters.pop()
    return alone.pop() if len(alone) == 1 else None


def subject_of(row: dict[str, Any]) -> str:
    """The row's subfield, else its field, else its discipline (the first not blank)."""
    named = (text(row.get(key)).strip() for key in ("subfield", "field", "discipline"))
    return next((name for name in named if name), "general")


@benchmark("supergpqa")
class SuperGPQA(Benchmark):
    description = "graduate-level multiple choice, letter answers (m-a-p/SuperGPQA)"
    default_source = DatasetSource("m-a-p/SuperGPQA", split="train")
    category = "reasoning"

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record:
        options = as_list(row.get("options"))
        valid = list(LETTERS[: min(len(options), len(LETTERS))])
        reference = text(first(row, "answer_letter")).strip().upper() or None
        if reference is None and row.get("answer") is not None:  # the option's text only
            texts = [text(o).strip() for o in options]
            answer = text(row["answer"]).strip()
            reference = valid[texts.index(answer)] if answer in texts else None
        problem = f"{text(row.get('question')).strip()}\n\n{lettered(options)}\n\n{INSTRUCTION}"
        return Record(
            record_id=text(first(row, "uuid", "id")) or str(index),
            problem=problem,
            reference=reference,
            subject=subject_of(row),
            metadata={
                "valid_letters": valid,
                "discipline": row.get("discipline"),
                "field": row.get("field"),
                "subfield": row.get("subfield"),
                "difficulty": row.get("difficulty"),
            },
        )

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        valid = list(record.metadata.get("valid_letters") or [])
        reference = record.reference if isinstance(record.reference, str) else None
        meta: dict[str, Any] = {
            "reference_letter": reference,
            "candidate_letter": None,
            "valid_letters": valid,
        }
        if not reference or reference not in valid:
            return ScoreResult(None, None, {**meta, "reason": "missing_reference_letter"})
        letter = extract_letter(answer, valid)
        meta["extraction"] = "rules"
        if letter is None and answer.strip():
            value, details = await ask_letter(judge, record, answer, valid)
            meta.update(extraction="judge", **details)
            if value is None and judge is not None and "judge_skipped" not in details:
                return ScoreResult(None, None, {**meta, "reason": "judge_undetermined"})
            letter = value if value in valid else None
        if letter is None:
            return ScoreResult(False, 0.0, {**meta, "reason": "no_choice_letter_extracted"})
        meta["candidate_letter"] = letter
        correct = letter == reference
        return ScoreResult(correct, 1.0 if correct else 0.0, meta)
