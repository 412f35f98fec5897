"""`EvalRunner(config, dataset, backend, scorer)`, the seed's API: an InferenceBackend
object answers as the model (its usage and cost counted), a custom scorer in either shape
(trialrun's async one, the seed's sync `(is_correct, metadata)` one) grades, and an
OpenJarvis backend and scorer object run unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from benchmarks_support import SUPERGPQA_ROWS, write_jsonl

from trialrun.benchmarks import (
    BENCHMARKS,
    BenchmarkDataset,
    EvalRunner,
    Record,
    ScoreResult,
    run_benchmark,
    single_pair,
)
from trialrun.errors import UserError


class SeedBackend:
    """The seed's InferenceBackend shape: sync, the model named per call."""

    backend_id = "seed-shaped"

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.calls: list[dict[str, Any]] = []

    def generate(self, prompt: str, *, model: str, system: str = "",
                 temperature: float = 0.0, max_tokens: int = 2048) -> str:  # fmt: skip
        full = self.generate_full(prompt, model=model, system=system,
                                  temperature=temperature, max_tokens=max_tokens)  # fmt: skip
        return str(full["content"])

    def generate_full(
        self, prompt: str, *, model: str, system: str = "", temperature: float = 0.0,
        max_tokens: int = 2048,
    ) -> dict[str, Any]:  # fmt: skip
        self.calls.append({"prompt": prompt, "model": model, "temperature": temperature,
                           "max_tokens": max_tokens})  # fmt: skip
        word = next((w for key, w in self.replies.items() if key in prompt), "nothing")
        return {"content": word, "usage": {"prompt_tokens": 7, "completion_tokens": 2},
                "model": model, "latency_seconds": 0.0, "cost_usd": 0.001}  # fmt: skip

    def close(self) -> None:
        pass


class SeedScorer:
    """The seed's Scorer shape: sync score(record, model_answer) -> (is_correct, meta)."""

    scorer_id = "same-word"

    def score(self, record: Any, model_answer: str) -> tuple[bool | None, dict[str, Any]]:
        if not record.reference:
            return None, {"reason": "empty_reference"}
        return model_answer.strip() == record.reference, {"heard": model_answer}


class AsyncScorer:
    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        return ScoreResult(answer == "moon", 1.0 if answer == "moon" else 0.0, {"j": judge})


class Words:
    """A DatasetProvider of its own (not a registered benchmark)."""

    def __init__(self) -> None:
        self.all = [Record("1", "Say hello", "hello", "greeting"),
                    Record("2", "Say world", "world", "greeting"),
                    Record("3", "Say moon", "moon", "space"),
                    Record("4", "Say nothing", "", "space")]  # fmt: skip
        self.records: list[Record] = []
        self.loaded_with: dict[str, Any] = {}

    def load(self, max_samples: int | None = None, split: str | None = None,
             seed: int | None = None) -> None:  # fmt: skip
        self.loaded_with = {"max_samples": max_samples, "split": split, "seed": seed}
        self.records = self.all[:max_samples]

    def iter_records(self) -> Iterator[Record]:
        return iter(self.records)

    def size(self) -> int:
        return len(self.records)


def test_an_inference_backend_object_and_a_seed_scorer(tmp_path: Path) -> None:
    pair = single_pair("words", "my-model", engine="ollama", output_dir=tmp_path / "out",
                       custom=True)  # fmt: skip
    backend = SeedBackend({"hello": "hello", "world": "planet", "moon": "moon"})
    dataset = Words()
    progress: list[tuple[int, int]] = []
    runner = EvalRunner(pair, dataset, backend, SeedScorer())
    summary = runner.run(lambda done, total: progress.append((done, total)))
    assert dataset.loaded_with == {"max_samples": None, "split": None, "seed": 42}
    # hello and moon right, world wrong, the empty reference undecided
    assert (summary["correct"], summary["scored_samples"], summary["undetermined"]) == (2, 3, 1)
    assert progress[-1] == (4, 4) and len(progress) == 4
    assert {c["model"] for c in backend.calls} == {"my-model"}
    assert {(c["temperature"], c["max_tokens"]) for c in backend.calls} == {(0.0, 2048)}
    lines = {r["record_id"]: r for r in runner.results}
    assert lines["1"]["scoring_metadata"] == {"heard": "hello"}
    assert (lines["1"]["prompt_tokens"], lines["1"]["completion_tokens"]) == (7, 2)
    assert summary["total_cost_usd"] == pytest.approx(0.004)
    assert summary["category"] == "words"  # no category of its own: the benchmark's name
    run = json.loads((runner.outcome.run_dir / "run.json").read_text())
    assert run["models"] == ["inference-backend:SeedBackend-my-model"]


def test_a_custom_scorer_replaces_a_registered_benchmarks_own(tmp_path: Path) -> None:
    rows = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS[:3])
    pair = single_pair("supergpqa", "m", engine="ollama", dataset=str(rows),
                       output_dir=tmp_path / "out")  # fmt: skip
    backend = SeedBackend({"Question 0": "A", "Question 1": "moon", "Question 2": "C"})
    dataset = BenchmarkDataset(BENCHMARKS.get("supergpqa")(), str(rows))
    outcome = run_benchmark(pair, dataset, backend, AsyncScorer(), handle_sigint=False)
    # the async scorer says right only to "moon": supergpqa's own would say 0 and 2
    assert (outcome.summary["correct"], outcome.summary["scored_samples"]) == (1, 3)
    assert outcome.summary["category"] == "reasoning"
    assert all(r.subject == ["Mechanics", "Ancient History"][i % 2]
               for i, r in enumerate(dataset.iter_records()))  # fmt: skip


def test_an_unknown_benchmark_without_a_dataset_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"unknown benchmark 'words'"):
        single_pair("words", "m", engine="ollama")  # a name must be known, unless custom
    pair = single_pair("words", "m", engine="ollama", output_dir=tmp_path / "out", custom=True)
    with pytest.raises(UserError, match=r"unknown benchmark 'words'.*pass a dataset and a scorer"):
        run_benchmark(pair, None, SeedBackend({}), None, handle_sigint=False)
    with pytest.raises(UserError, match=r"not an InferenceBackend"):
        run_benchmark(pair, Words(), object(), SeedScorer(), handle_sigint=False)


def test_openjarvis_backend_and_scorer_objects_run_unchanged(tmp_path: Path) -> None:
    scorers = pytest.importorskip("openjarvis.evals.scorers.supergpqa_mcq")
    backend_base = pytest.importorskip("openjarvis.evals.core.backend").InferenceBackend

    class Letters(backend_base):  # an OpenJarvis backend: its ABC, its signatures
        backend_id = "letters"

        def __init__(self) -> None:
            self.prompts: list[str] = []

        def generate(self, prompt: str, *, model: str, system: str = "",
                     temperature: float = 0.0, max_tokens: int = 2048) -> str:  # fmt: skip
            return str(self.generate_full(prompt, model=model)["content"])

        def generate_full(
            self, prompt: str, *, model: str, system: str = "", temperature: float = 0.0,
            max_tokens: int = 2048,
        ) -> dict[str, Any]:  # fmt: skip
            # as the model it answers A; as the seed scorer's judge, the letter it reads: A
            self.prompts.append(prompt)
            return {"content": "A", "usage": {}, "cost_usd": 0.0}

    rows = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS[:4])
    pair = single_pair("supergpqa", "qwen3:8b", engine="ollama", dataset=str(rows),
                       output_dir=tmp_path / "out")  # fmt: skip
    judge = Letters()
    scorer = scorers.SuperGPQAScorer(judge, "judge-model")
    dataset = BenchmarkDataset(BENCHMARKS.get("supergpqa")(), str(rows))
    summary = EvalRunner(pair, dataset, Letters(), scorer).run()
    # the model always answers A, right for row 0 of the four (answer letters A, B, C, D)
    assert (summary["correct"], summary["scored_samples"]) == (1, 4)
    assert len(judge.prompts) == 4  # the seed's scorer asked its judge once a record
