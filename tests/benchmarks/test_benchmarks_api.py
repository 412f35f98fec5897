"""The Python seams: a new benchmark is one class and a registration, a dataset provider
is any object with load / iter_records / size, and `run_benchmark` takes (config,
dataset, backend, scorer)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trialrun.benchmarks import (
    BENCHMARKS,
    Benchmark,
    DatasetProvider,
    InferenceBackend,
    ModelBackend,
    Record,
    Scorer,
    ScoreResult,
    benchmark,
    expand,
    load_suite,
    run_benchmark,
)
from trialrun.models import create_model


@benchmark("echo-test")
class EchoBench(Benchmark):
    description = "the answer must repeat the reference"

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record:
        return Record(str(row["id"]), f"Say {row['word']}", row["word"], row.get("kind"))

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        ok = answer.strip() == record.reference
        return ScoreResult(ok, float(ok), {"heard": answer})


class ListDataset:
    def __init__(self, records: list[Record]) -> None:
        self.records = records

    def load(self, max_samples: int | None = None, split: str | None = None, seed: int = 42):
        self.records = self.records[:max_samples]

    def iter_records(self) -> Iterator[Record]:
        return iter(self.records)

    def size(self) -> int:
        return len(self.records)


def test_a_registered_benchmark_runs_through_run_benchmark(tmp_path: Path) -> None:
    assert "echo-test" in BENCHMARKS.names()
    assert isinstance(EchoBench(), Scorer)
    script = tmp_path / "m.yaml"
    script.write_text(
        json.dumps(
            {
                "tasks": {
                    "echo-test-1": [{"content": "hello"}],
                    "echo-test-2": [{"content": "nope"}],
                    "echo-test-3": [{"content": "moon"}],
                }
            }
        )
    )
    suite = tmp_path / "s.toml"
    suite.write_text(
        '[meta]\nname = "api"\n[[models]]\nname = "m.yaml"\nprovider = "scripted"\n'
        '[[benchmarks]]\nname = "echo-test"\n'
    )
    (pair,) = expand(load_suite(suite))
    dataset = ListDataset(
        [
            Record("1", "Say hello", "hello", "greeting"),
            Record("2", "Say world", "world", "greeting"),
            Record("3", "Say moon", "moon", "space"),
        ]
    )
    assert isinstance(dataset, DatasetProvider)
    outcome = run_benchmark(pair, dataset, "direct", EchoBench(), handle_sigint=False)
    summary = outcome.summary
    assert (summary["correct"], summary["scored_samples"]) == (2, 3)
    assert summary["per_subject"]["greeting"]["correct"] == 1
    assert summary["category"] == "echo-test"  # no category of its own: the name, as the seed
    lines = [json.loads(x) for x in pair.records_path.read_text().splitlines()]
    heard = {line["record_id"]: line["scoring_metadata"]["heard"] for line in lines}
    assert heard == {"1": "hello", "2": "nope", "3": "moon"}


def test_model_backend_is_an_inference_backend(tmp_path: Path) -> None:
    script = tmp_path / "m.yaml"
    script.write_text(
        json.dumps({"default": [{"content": "pong", "usage": {"prompt": 3, "completion": 1}}]})
    )
    backend = ModelBackend(create_model(f"scripted:{script}"))
    assert isinstance(backend, InferenceBackend)

    async def use() -> tuple[str, dict[str, Any]]:
        text = await backend.generate("ping", temperature=0.0, max_tokens=5)
        full = await backend.generate_full("ping", system="be brief")
        await backend.close()
        return text, full

    text, full = asyncio.run(use())
    assert text == "pong"
    assert full["content"] == "pong" and full["usage"]["prompt"] == 3
    assert full["latency_s"] >= 0
