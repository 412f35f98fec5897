"""FRAMES: multi-hop factual questions over Wikipedia (google/frames-benchmark).

Columns: Prompt, Answer, reasoning_types, wiki_links. The judge decides whether the
model's answer is semantically equivalent to the reference, ignoring format and case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trialrun.benchmarks._judging import LLMJudgeScorer
from trialrun.benchmarks._rows import as_list, first, text
from trialrun.benchmarks._types import DatasetSource, Record, benchmark


@benchmark("frames")
class Frames(LLMJudgeScorer):
    description = "multi-hop factual questions, judged equivalence (google/frames-benchmark)"
    default_source = DatasetSource("google/frames-benchmark", split="test")
    suite = "open_ended"
    category = "rag"

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record:
        return Record(
            record_id=text(first(row, "Unnamed: 0", "id", "index")) or str(index),
            problem=text(first(row, "Prompt", "prompt", "question")).strip(),
            reference=text(first(row, "Answer", "answer")).strip(),
            subject=text(row.get("reasoning_types")) or None,
            metadata={"wiki_links": as_list(row.get("wiki_links"))},
        )

    def criterion(self, record: Record) -> str:
        return (
            f"The response's answer is semantically equivalent to the reference answer "
            f"'{record.reference}': the same fact, whatever the format, wording or case; "
            "extra explanation is fine, a different or missing answer is not."
        )
