"""OpenJarvis's benchmark catalogue as trialrun benchmarks (the `openjarvis` extra).

A benchmark name trialrun does not ship resolves, when `openjarvis` is installed, to
OpenJarvis's own dataset provider and scorer (`openjarvis.evals`): its records become
Records, its scorer grades each trial. OpenJarvis scorers are synchronous and ask their
judge through an OpenJarvis `InferenceBackend`; `JudgeBackend` is that shape over the
run's trialrun judge model, its calls sent to the trial's event loop from the scorer's
worker thread.

`dataset = "PATH"` loads a local copy: rows read as trialrun reads any dataset (jsonl,
csv, parquet, a dataset folder) and mapped by the provider's own row mapping
(`_convert_row`); a provider without one but with a hub name (`_hf_path`) loads the
local folder through its own `load`; one taking a `path` gets it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.benchmarks._datasets import PLAIN_SUFFIXES, hf_rows, is_local, plain_rows, resolve
from trialrun.benchmarks._openjarvis_jail import CODE_RUNNING, score_contained
from trialrun.benchmarks._types import Benchmark, Record, ScoreResult
from trialrun.errors import UserError
from trialrun.models import CompletionParams

INSTALL = "pip install 'trialrun[openjarvis]'"
ORIGIN = "openjarvis"
_CATEGORY_KEY = "openjarvis_category"
# the names OpenJarvis 1.0.4 ships: without the extra, a suite naming one is told to install it
OPENJARVIS_NAMES = frozenset(
    [
        "ama-bench", "browser_assistant", "coding_assistant", "coding_task", "daily_digest",
        "deepplanning", "deepresearch", "doc_qa", "email_triage", "frames", "gaia", "gpqa",
        "hle", "ipw", "knowledge_base", "lifelong-agent", "livecodebench", "liveresearch",
        "liveresearchbench", "loghub", "math500", "mmlu-pro", "morning_brief",
        "natural-reasoning", "paperarena", "pinchbench", "research_mining", "security_scanner",
        "simpleqa", "supergpqa", "swebench", "swefficiency", "taubench", "terminalbench",
        "terminalbench-native", "terminalbench-v2.1", "toolcall15", "webchorearena", "wildchat",
        "workarena",
    ]
)


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """One OpenJarvis benchmark: its name, category and description."""

    name: str
    category: str
    description: str


def _evals_cli() -> Any:
    """OpenJarvis's eval command module (its catalogue and builders), None without it."""
    try:
        from openjarvis.evals import cli  # type: ignore[import-untyped]
    except ImportError:
        return None
    return cli


def installed() -> bool:
    return _evals_cli() is not None


def catalogue() -> dict[str, CatalogueEntry]:
    """OpenJarvis's benchmarks by name ({} when openjarvis is not installed)."""
    cli = _evals_cli()
    if cli is None:
        return {}
    return {
        name: CatalogueEntry(name, str(info.get("category", "")), str(info.get("description", "")))
        for name, info in sorted(cli.BENCHMARKS.items())
    }


def missing_line(name: str) -> str:
    """The line for a benchmark only OpenJarvis has, when it is not installed."""
    return f"benchmark '{name}' comes from OpenJarvis; install it: {INSTALL}"


def to_record(record: Any) -> Record:
    """An OpenJarvis EvalRecord as a Record (metadata made JSON-able: it travels in the task)."""
    metadata = json.loads(json.dumps(dict(record.metadata or {}), default=str))
    metadata[_CATEGORY_KEY] = record.category
    return Record(
        record_id=str(record.record_id),
        problem=str(record.problem),
        reference=json.loads(json.dumps(record.reference, default=str)),
        subject=str(record.subject) if record.subject else None,
        metadata=metadata,
    )


def to_eval_record(record: Record) -> Any:
    from openjarvis.evals.core.types import EvalRecord  # type: ignore[import-untyped]

    metadata = dict(record.metadata)
    category = str(metadata.pop(_CATEGORY_KEY, ""))
    reference = record.reference
    return EvalRecord(
        record_id=record.record_id,
        problem=record.problem,
        reference="" if reference is None else reference,
        category=category,
        subject=record.subject or "",
        metadata=metadata,
    )


class JudgeBackend:
    """OpenJarvis's `InferenceBackend` shape over a trialrun judge model. Called from the
    scorer's worker thread; each call runs on `loop` (the trial's) and waits for it."""

    backend_id = "trialrun-judge"
    framework_name = "trialrun"
    framework_commit_value = ""

    def __init__(
        self, judge: Any, loop: asyncio.AbstractEventLoop, task_id: str | None = None
    ) -> None:
        self.judge = judge
        self.loop = loop
        self.task_id = task_id  # the trial's task (a scripted judge keys on it)

    def generate_full(
        self,
        prompt: str,
        *,
        model: str = "",
        system: str = "",
        temperature: float = 0.0,
        max_tokens: int = 2048,
    ) -> dict[str, Any]:
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        params = CompletionParams(
            temperature=temperature, max_tokens=max_tokens, task_id=self.task_id
        )
        future = asyncio.run_coroutine_threadsafe(
            self.judge.complete(messages, [], params), self.loop
        )
        completion = future.result()
        return {
            "content": completion.text or "",
            "usage": completion.usage.as_dict(),
            "model": model,
            "latency_seconds": 0.0,
            "cost_usd": completion.cost_usd,
        }

    def generate(
        self,
        prompt: str,
        *,
        model: str = "",
        system: str = "",
        temperature: float = 0.0,
        max_tokens: int = 2048,
    ) -> str:
        reply = self.generate_full(
            prompt, model=model, system=system, temperature=temperature, max_tokens=max_tokens
        )
        return str(reply["content"])

    def close(self) -> None:
        """The judge belongs to the run: nothing to free here."""


class OpenJarvisBenchmark(Benchmark):
    """One OpenJarvis benchmark: its provider loads the records, its scorer grades."""

    def __init__(self, entry: CatalogueEntry) -> None:
        self.entry = entry
        self.name = entry.name  # type: ignore[misc]
        self.description = entry.description  # type: ignore[misc]
        self.default_backend = "direct"  # type: ignore[misc]

    def provider(self, subset: str | None = None, path: str | None = None) -> Any:
        cli = _evals_cli()
        if path is not None:
            cls = type(cli._build_dataset(self.name, subset))
            return cls(path=path)
        return cli._build_dataset(self.name, subset)

    def scorer(
        self, judge: Any, loop: asyncio.AbstractEventLoop, task_id: str | None = None
    ) -> Any:
        cli = _evals_cli()
        backend = JudgeBackend(judge, loop, task_id) if judge is not None else None
        judge_name = str(getattr(judge, "model_id", "") or "")
        return cli._build_scorer(self.name, backend, judge_name)

    def to_record(self, row: dict[str, Any], index: int, data_dir: Path | None) -> Record | None:
        converted = self.provider()._convert_row(row, index)
        return None if converted is None else to_record(converted)

    async def score(self, record: Record, answer: str, judge: Any) -> ScoreResult:
        try:
            if self.name in CODE_RUNNING:  # the model's code never runs in this process
                is_correct, metadata = await score_contained(
                    self.name, to_eval_record(record), answer
                )
            else:
                scorer = self.scorer(judge, asyncio.get_running_loop(), record.task_id)
                is_correct, metadata = await asyncio.to_thread(
                    scorer.score, to_eval_record(record), answer
                )
        except Exception as exc:  # the scorer's own failure: undetermined, said in the record
            return ScoreResult(None, None, {"scorer_error": f"{type(exc).__name__}: {exc}"})
        details = json.loads(json.dumps(dict(metadata or {}), default=str))
        score = details.pop("score", None)
        if not isinstance(score, int | float) or isinstance(score, bool):
            score = None if is_correct is None else float(bool(is_correct))
        return ScoreResult(None if is_correct is None else bool(is_correct), score, details)


def caveat(name: str) -> str | None:
    """What trialrun leaves out of OpenJarvis's benchmark `name`, or None: a per-task
    environment its provider sets up (`create_task_env`: a workspace, a simulator, a
    browser, Docker) or records grouped into episodes that share the agent's state."""
    cli = _evals_cli()
    if cli is None or name not in catalogue():
        return None
    from openjarvis.evals.core.dataset import DatasetProvider  # type: ignore[import-untyped]

    cls = type(cli._build_dataset(name))
    missing = []
    if cls.create_task_env is not DatasetProvider.create_task_env:
        missing.append("the per-task environment its provider sets up (create_task_env)")
    if cls.iter_episodes is not DatasetProvider.iter_episodes:
        missing.append("its episodes (records that share the agent's state)")
    if not missing:
        return None
    return (
        f"benchmark '{name}' (openjarvis): trialrun runs each record on its own, without "
        f"{' or '.join(missing)}; its scores may differ from OpenJarvis's own runs"
    )


def openjarvis_benchmark(name: str) -> Callable[[], OpenJarvisBenchmark] | None:
    """The factory of OpenJarvis's benchmark `name`; None when not installed or unknown."""
    entry = catalogue().get(name)
    if entry is None:
        return None
    return lambda: OpenJarvisBenchmark(entry)


def _row_mapping(provider: Any) -> Callable[[dict[str, Any], int], Any] | None:
    convert = getattr(provider, "_convert_row", None)
    if convert is None:
        return None
    params = list(inspect.signature(convert).parameters)
    return convert if len(params) == 2 else None


def _takes_path(provider: Any) -> bool:
    return "path" in inspect.signature(type(provider).__init__).parameters


class OpenJarvisDataset:
    """A trialrun `DatasetProvider` over an OpenJarvis provider: its hub dataset through
    its own `load`, or a local copy (`source`)."""

    def __init__(
        self,
        bench: OpenJarvisBenchmark,
        source: str | None = None,
        *,
        base: Path | None = None,
        subset: str | None = None,
    ) -> None:
        self.bench = bench
        self.source = source
        self.base = base
        self.subset = subset
        self.records: list[Record] = []
        self.loaded = False

    def load(
        self, max_samples: int | None = None, split: str | None = None, seed: int | None = 42
    ) -> None:
        if max_samples is not None and max_samples < 1:
            raise UserError(f"max_samples {max_samples}: must be at least 1")
        if self.source is None:
            loaded = self._own_load(self.bench.provider(self.subset), max_samples, split, seed)
        else:
            loaded = self._local_load(max_samples, split, seed)
        self.records = loaded
        self.loaded = True

    def _local_hint(self) -> str:
        provider = self.bench.provider(self.subset)
        readable = _row_mapping(provider) is not None or getattr(provider, "_hf_path", None)
        if readable or _takes_path(provider):
            return '; give a local copy with dataset = "PATH"'
        return ""

    def _own_load(
        self, provider: Any, max_samples: int | None, split: str | None, seed: int | None
    ) -> list[Record]:
        try:
            provider.load(max_samples=max_samples, split=split, seed=seed)
            return [to_record(r) for r in provider.iter_records()]
        except UserError:
            raise
        except Exception as exc:  # a download, a missing checkout: one line, its reason
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
            raise UserError(
                f"benchmark {self.bench.name} (openjarvis): could not load its dataset "
                f"({first}){self._local_hint()}"
            ) from None

    def _local_load(
        self, max_samples: int | None, split: str | None, seed: int | None
    ) -> list[Record]:
        source = str(self.source)
        path = resolve(source, self.base)
        if not path.exists():
            raise UserError(f"dataset {path}: no such file or folder")
        provider = self.bench.provider(self.subset)
        convert = _row_mapping(provider)
        if convert is None:
            if getattr(provider, "_hf_path", None) and path.is_dir():
                provider._hf_path = str(path)
                return self._own_load(provider, max_samples, split, seed)
            if _takes_path(provider):
                return self._own_load(
                    self.bench.provider(self.subset, str(path)), max_samples, split, seed
                )
            raise UserError(
                f"benchmark {self.bench.name} (openjarvis): its provider cannot read a local "
                "dataset; drop dataset = … to use its own source"
            )
        local = is_local(source, self.base)
        rows = (
            plain_rows(path)
            if local and path.suffix.lower() in PLAIN_SUFFIXES
            else hf_rows(source, base=self.base, split=split, split_given=split is not None)
        )
        records: list[Record] = []
        for index, row in enumerate(rows):
            converted = convert(row, index)
            if converted is not None:
                records.append(to_record(converted))
        if seed is not None:
            random.Random(seed).shuffle(records)
        return records[:max_samples] if max_samples is not None else records

    def iter_records(self) -> Iterator[Record]:
        if not self.loaded:
            self.load()
        return iter(self.records)

    def size(self) -> int:
        if not self.loaded:
            self.load()
        return len(self.records)
