"""One model × benchmark run of a suite, every setting resolved (its own module so the
benchmark types can name it without importing the suite loader)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trialrun.benchmarks._specs import model_slug


@dataclass(slots=True)
class PairRun:
    """One model × benchmark run of a suite, every setting resolved."""

    benchmark: str  # the benchmark's name (a registered one, or a task folder)
    model_name: str
    model_spec: str
    backend: str  # direct | agent
    tools: list[str]
    agent: str | None  # a package.module:function agent instead of the backend
    dataset: str | None
    task_folder: Path | None
    max_samples: int | None
    split: str | None
    seed: int
    temperature: float
    max_tokens: int
    judge_spec: str | None
    max_workers: int | None
    output_dir: Path
    base: Path
    notes: list[str] = field(default_factory=list)
    judge_max_tokens: int | None = None  # [judge] max_tokens
    judge_temperature: float | None = None  # [judge] temperature (unset: 0)
    trials: int = 1  # trials per record (pass^k, solve^k over them)
    user_model: str | None = None  # an episodic benchmark's simulated user (None: the model)
    subset: str | None = None  # an OpenJarvis provider's subset (domains, a checkout path)

    @property
    def stem(self) -> str:
        """`{benchmark}_{model-slug}`: the per-pair output files' name."""
        return f"{model_slug(self.benchmark)}_{model_slug(self.model_name)}"

    @property
    def records_path(self) -> Path:
        return self.output_dir / f"{self.stem}.jsonl"

    @property
    def summary_path(self) -> Path:
        return self.output_dir / f"{self.stem}.summary.json"
