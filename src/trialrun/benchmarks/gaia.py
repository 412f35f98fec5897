"""GAIA: general assistant questions, some with an attached file (gaia-benchmark/GAIA).

Columns: task_id, Question, Level, "Final answer", file_name, file_path. An attached
file is copied into the trial's workspace and named in the prompt (read it with the
`file_read` tool on the agent backend). Scoring: normalized exact match (GAIA's rules,
`exact_match`), then the judge as fallback; metadata `match_type` exact | llm_fallback.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

from trialrun.benchmarks._judging import ask_equivalent
from trialrun.benchmarks._rows import first, text
from trialrun.benchmarks._types import Benchmark, DatasetSource, Record, ScoreResult, benchmark
from trialrun.errors import UserError

INSTRUCTION = (
    "Answer the question. End with a last line `FINAL ANSWER: …` giving only the answer: "
    "a number, as few words as possible, or a comma-separated list."
)
MAX_INLINE_CHARS = 20_000
_FINAL = re.compile(r"final\s+answer\s*:\s*(.+)", re.IGNORECASE | re.DOTALL)


def normalize_number(value: str) -> float | None:
    """A number with `$`, `%` and `,` removed, as a float; None when it is not one."""
    cleaned = value.strip()
    for char in ("$", "%", ","):
        cleaned = cleaned.replace(char, "")
    try:
        return float(cleaned.strip())
    except ValueError:
        return None


def normalize_text(value: str, *, keep_punctuation: bool = False) -> str:
    """Lowercased, without whitespace (and without punctuation unless kept)."""
    out = re.sub(r"\s", "", value).lower()
    if not keep_punctuation:
        out = out.translate(str.maketrans("", "", string.punctuation))
    return out


def _is_number(value: str) -> bool:
    """A reference that is a number: it parses once `$` and `%` are dropped (a `,` makes
    it a list, as in GAIA's scorer)."""
    if "," in value:
        return False
    try:
        float(value.replace("$", "").replace("%", "").strip())
    except ValueError:
        return False
    return True


def _split_list(value: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,;]", value)]


def exact_match(answer: str, reference: str) -> bool:
    """GAIA's normalized exact match: numbers compare as floats (after dropping `$`, `%`,
    `,`); references with `,` or `;` compare as lists, element by element (numbers as
    floats, text lowercased without whitespace); anything else compares lowercased,
    without whitespace and punctuation."""
    answer, reference = str(answer), str(reference)
    if _is_number(reference):
        value = normalize_number(answer)
        return value is not None and value == normalize_number(reference)
    if "," in reference or ";" in reference:
        got, want = _split_list(answer), _split_list(reference)
        if len(got) != len(want):
            return False
        for g, w in zip(got, want, strict=True):
            if _is_number(w):
                if normalize_number(g) != normalize_number(w):
                    return False
            elif normalize_text(g, keep_punctuation=True) != normalize_text(
                w, keep_punctuation=True
            ):
                return False
        return True
    return normalize_text(answer) == normalize_text(reference)


def final_answer(answer: str) -> str:
    """The text after the last `FINAL ANSWER:` (the whole answer when there is none)."""
    matches = list(_FINAL.finditer(answer))
    if not matches:
        return answer.strip()
    return matches[-1].group(1).strip().splitlines()[0].strip() if matches[-1].group(1) else ""


def _attached(row: dict[str, Any], data_dir: Path | None, record_id: str) -> list[Path]:
    name = text(row.get("file_name")).strip()
    if not name:
        return []
    candidates = []
    given = text(row.get("file_path")).strip()
    if given:
        path = Path(given)
        candidates.append(path if path.is_absolute() or data_dir is None else data_dir / path)
    if data_dir is not None:
        candidates.append(data_dir / name)
    for path in candidates:
        if path.is_file():
            return [path]
    where = ", ".join(str(c) for c in candidates) or "no local dataset folder"
    raise UserError(
        f"gaia record {record_id}: attached file '{name}' not found (looked at {where}); "
        "keep the files beside the dataset as GAIA ships them"
    )


@benchmark("gaia")
class Gaia(Benchmark):
    description = "general assistant questions with attached files (gaia-benchmark/GAIA)"
    default_source = DatasetSource("gaia-benchmark/GAIA", config="2023_all", split="validation")
    default_backend = "agent"
    category = "agentic"

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record:
        record_id = text(first(row, "task_id", "id")) or str(index)
        level = first(row, "Level", "level")
        return Record(
            record_id=record_id,
            problem=text(first(row, "Question", "question")).strip(),
            reference=text(first(row, "Final answer", "final_answer", "answer")).strip(),
            subject=f"level {level}" if level is not None else None,
            metadata={"level": level, "file_name": text(row.get("file_name")) or None},
            files=_attached(row, data_dir, record_id),
        )

    def prompt(self, record: Record, backend: str) -> str:
        parts = [record.problem]
        for path in record.files:
            if backend == "agent":
                parts.append(
                    f"Attached file: {path.name} (in your working folder; read it with the "
                    "file_read tool)."
                )
                continue
            try:
                body = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                body = "(a binary file: use the agent backend to work with it)"
            parts.append(f'<file name="{path.name}">\n{body[:MAX_INLINE_CHARS]}\n</file>')
        parts.append(INSTRUCTION)
        return "\n\n".join(parts)

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        reference = text(record.reference)
        extracted = final_answer(answer)
        meta: dict[str, Any] = {"extracted_answer": extracted, "match_type": "exact"}
        if not reference:
            return ScoreResult(None, None, {**meta, "reason": "missing_reference"})
        if exact_match(extracted, reference):
            return ScoreResult(True, 1.0, meta)
        if judge is None or not extracted:
            return ScoreResult(False, 0.0, meta)
        criterion = (
            f"The response's final answer means the same as the reference answer "
            f"'{reference}' (ignore format, units written out, and case)."
        )
        value, details = await ask_equivalent(judge, record, extracted, criterion)
        meta.update(match_type="llm_fallback", **details)
        if value is None:
            return ScoreResult(None, None, {**meta, "reason": "judge_undetermined"})
        return ScoreResult(value, 1.0 if value else 0.0, meta)
