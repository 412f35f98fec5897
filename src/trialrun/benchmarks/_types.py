"""The seams of benchmark mode: records, scorers, benchmarks and their registry.

A benchmark is one file and a registration::

    @benchmark("mybench")
    class MyBench(Benchmark):
        default_source = DatasetSource("org/mybench", split="test")
        def to_record(self, row, index, data_dir): ...  # a row -> Record (None: dropped)
        async def score(self, record, answer, judge): ...  # -> ScoreResult

Third parties register through the `trialrun.benchmarks` entry point group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from trialrun.core import Registry

if TYPE_CHECKING:
    from trialrun.benchmarks._pair import PairRun
    from trialrun.tasks import Task


@dataclass(slots=True)
class Record:
    """One dataset record as a benchmark question. `files`: attached files (absolute
    paths) copied into the workspace; `subject`: the per-subject breakdown key."""

    record_id: str
    problem: str
    reference: Any = None
    subject: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    # the task this record runs as (judges are asked under it; a scripted judge keys on it)
    task_id: str | None = None
    category: str = ""  # the seed's EvalRecord.category (its benchmark's, when it has one)

    def scoring_data(self) -> dict[str, Any]:
        """What the scorer needs, kept in the task (JSON-able)."""
        return {
            "record_id": self.record_id,
            "problem": self.problem,
            "reference": self.reference,
            "subject": self.subject,
            "metadata": self.metadata,
            "category": self.category,
        }

    @classmethod
    def from_scoring_data(cls, data: dict[str, Any]) -> Record:
        return cls(
            record_id=str(data.get("record_id", "")),
            problem=str(data.get("problem", "")),
            reference=data.get("reference"),
            subject=data.get("subject"),
            metadata=dict(data.get("metadata") or {}),
            category=str(data.get("category") or ""),
        )


@dataclass(slots=True)
class ScoreResult:
    """`is_correct` None: the scorer could not decide (never counted as correct)."""

    is_correct: bool | None
    score: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Scorer(Protocol):
    """Scores one answer. `judge` is the run's judge Model, or None without one."""

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult: ...


@dataclass(frozen=True, slots=True)
class DatasetSource:
    """Where a benchmark's records come from by default: a hub name (or a path), its
    configuration name and split."""

    name: str
    config: str | None = None
    split: str = "test"


class Benchmark:
    """Base of the built-in benchmarks: a record mapping, a prompt and a scorer."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    default_source: ClassVar[DatasetSource | None] = None
    default_backend: ClassVar[str] = "direct"
    # the seed's category (chat, reasoning, rag, agentic): a summary's `category`
    category: ClassVar[str] = ""
    # the suite this benchmark's tasks belong to (gates and reports use it)
    suite: ClassVar[str] = "golden"
    # episodic: each record is a whole episode (tools, a simulated user, k trials) whose
    # task the benchmark builds itself (`episodes`); no dataset rows, no `score`
    episodic: ClassVar[bool] = False

    def episodes(self, pair: PairRun) -> tuple[list[Record], list[Task]]:
        """An episodic benchmark's records and their tasks for one suite pair."""
        raise NotImplementedError

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record | None:
        """A dataset row as a Record; None drops the row (a filter). `data_dir`: the local
        dataset's folder (attached files are found from it), None for hub datasets."""
        raise NotImplementedError

    def prompt(self, record: Record, backend: str) -> str:
        """The user message the model gets (default: the problem)."""
        return record.problem

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        raise NotImplementedError


BENCHMARKS: Registry[Callable[[], Benchmark]] = Registry(
    "benchmark", "trialrun.benchmarks", builtin_modules=("trialrun.benchmarks.builtin",)
)


def benchmark(name: str) -> Callable[[type[Benchmark]], type[Benchmark]]:
    """Register a Benchmark class under `name` (a `[[benchmarks]] name` in suite files)."""

    def decorate(cls: type[Benchmark]) -> type[Benchmark]:
        cls.name = name
        BENCHMARKS.add(name, cls)
        return cls

    return decorate


@runtime_checkable
class InferenceBackend(Protocol):
    """How a model answers one prompt: `generate` → text, `generate_full` → a dict with
    `content`, `usage` {prompt, completion}, `latency_s`, `cost_usd`; `close` frees it."""

    async def generate(self, prompt: str, **params: Any) -> str: ...

    async def generate_full(self, prompt: str, **params: Any) -> dict[str, Any]: ...

    async def close(self) -> None: ...
