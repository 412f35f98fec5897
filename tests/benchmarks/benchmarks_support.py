"""Small datasets in the real benchmarks' column layouts (SuperGPQA, GAIA with an
attached file, FRAMES, WildChat)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

SUPERGPQA_ROWS = [
    {
        "uuid": f"sg-{i:03d}",
        "question": f"Question {i}?",
        "options": ["alpha", "beta", "gamma", "delta"],
        "answer": ["alpha", "beta", "gamma", "delta"][i % 4],
        "answer_letter": "ABCD"[i % 4],
        "discipline": ["Science", "History"][i % 2],
        "field": ["Physics", "History"][i % 2],
        "subfield": ["Mechanics", "Ancient History"][i % 2],
        "difficulty": "easy",
        "is_calculation": False,
    }
    for i in range(10)
]

FRAMES_ROWS = [
    {
        "Unnamed: 0": i,
        "Prompt": f"Multi-hop question {i}?",
        "Answer": f"answer {i}",
        "wikipedia_link_1": f"https://en.wikipedia.org/wiki/Page_{i}",
        "reasoning_types": "Numerical reasoning" if i % 2 else "Multiple constraints",
        "wiki_links": json.dumps([f"https://en.wikipedia.org/wiki/Page_{i}"]),
    }
    for i in range(4)
]


def wildchat_rows() -> list[dict[str, Any]]:
    def msg(role: str, content: str, language: str = "English") -> dict[str, Any]:
        return {"role": role, "content": content, "language": language, "toxic": False}

    return [
        {  # kept: English, one user turn and one reply
            "conversation_hash": "wc-en-1",
            "model": "gpt-3.5-turbo",
            "conversation": [msg("user", "Write a haiku about rain"), msg("assistant", "Rain")],
            "turn": 1,
            "language": "English",
        },
        {  # dropped: not English
            "conversation_hash": "wc-fr",
            "model": "gpt-4",
            "conversation": [msg("user", "Bonjour", "French"), msg("assistant", "Salut", "French")],
            "turn": 1,
            "language": "French",
        },
        {  # dropped: two turns
            "conversation_hash": "wc-multi",
            "model": "gpt-4",
            "conversation": [
                msg("user", "Hi"), msg("assistant", "Hello"), msg("user", "More"),
                msg("assistant", "Sure"),
            ],
            "turn": 2,
            "language": "English",
        },
        {  # kept
            "conversation_hash": "wc-en-2",
            "model": "gpt-4",
            "conversation": [msg("user", "Name a prime number"), msg("assistant", "7")],
            "turn": 1,
            "language": "English",
        },
    ]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()}
            )
    return path


def write_gaia(folder: Path) -> Path:
    """GAIA's layout: metadata.jsonl beside the attached files."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sales.csv").write_text("month,total\njan,40\nfeb,2\n", encoding="utf-8")
    rows = [
        {
            "task_id": "g-file",
            "Question": "What is the sum of the totals in the attached file?",
            "Level": 1,
            "Final answer": "42",
            "file_name": "sales.csv",
            "file_path": "sales.csv",
            "Annotator Metadata": {"Steps": "add"},
        },
        {
            "task_id": "g-plain",
            "Question": "Name the capital of France.",
            "Level": 2,
            "Final answer": "Paris",
            "file_name": "",
            "file_path": "",
            "Annotator Metadata": {"Steps": "recall"},
        },
    ]
    return write_jsonl(folder / "metadata.jsonl", rows)
