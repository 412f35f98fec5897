"""Dataset records as trialrun Tasks: one task per record, k = the pair's `trials`, whose
one grader runs the benchmark's scorer; the prompt, generation settings and attached files travel in
the task, so the run folder, metrics, baselines, gates and reports apply unchanged."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from trialrun.benchmarks._types import Benchmark, Record
from trialrun.tasks import Task

if TYPE_CHECKING:
    from trialrun.benchmarks._suite import PairRun

MAX_ID = 120


def task_id_for(benchmark: str, record_id: str) -> str:
    """`{benchmark}-{record_id}` as a safe task id (long or odd ids get a short hash)."""
    raw = f"{benchmark}-{record_id}"
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", raw).replace("..", "-")
    safe = re.sub(r"^[^A-Za-z0-9]+", "", safe) or "record"
    if safe != raw or len(safe) > MAX_ID:
        digest = hashlib.sha1(raw.encode()).hexdigest()[:8]
        safe = f"{safe[: MAX_ID - 9]}-{digest}" if len(safe) > MAX_ID else safe
    return safe


def record_tasks(
    bench: Benchmark,
    records: Iterable[Record],
    pair: PairRun,
    *,
    judged: bool,
    scorer: str | None = None,
) -> list[Task]:
    """One Task per record, ids unique within the run. `scorer`: a custom scorer's key
    (`_scorers`), graded in place of the benchmark's own."""
    tasks: list[Task] = []
    seen: set[str] = set()
    generation = {
        "temperature": pair.temperature,
        "max_tokens": pair.max_tokens,
        "seed": pair.seed,
    }
    tools: list[Any] = list(pair.tools) if pair.backend == "agent" else []
    for record in records:
        task_id = task_id_for(bench.name, record.record_id)
        if task_id in seen:
            task_id = f"{task_id[:MAX_ID]}-{len(tasks)}"
        seen.add(task_id)
        record.task_id = task_id
        setup = [{"path": f.name, "from": f.name} for f in record.files]
        task = Task.model_validate(
            {
                "task_id": task_id,
                "suite": bench.suite,
                "description": f"{bench.name} record {record.record_id}",
                "inputs": {
                    "prompt": bench.prompt(record, pair.backend),
                    "generation": generation,
                    "benchmark": bench.name,
                    "record_id": record.record_id,
                },
                "graders": [
                    {
                        "type": "benchmarkJudged" if judged else "benchmark",
                        "benchmark": bench.name,
                        "record": record.scoring_data(),
                        **({"scorer": scorer} if scorer is not None else {}),
                    }
                ],
                "tracked_metrics": ["solve_rate"],
                "tags": [bench.name, *([record.subject] if record.subject else [])],
                "trials": {"k": pair.trials},
                "environment": {"tools": tools, "setup": setup},
            }
        )
        if record.files:  # each attached file is seeded from its own folder
            task.set_provenance(None, "benchmark", fixtures_root=record.files[0].parent)
        tasks.append(task)
    return tasks
