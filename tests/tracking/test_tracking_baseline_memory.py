"""A blessed baseline read back holds each task entry in a few hundred bytes: the entry
and its metrics packed (`PackedEntry`: a shared key layout and a tuple of values), its
latencies an array, and the floats every entry writes alike one object each."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

from trialrun.rundir import Baseline
from trialrun.tracking import load_baseline

TASKS, K = 4000, 10
# today ~600 (the entry ~220, its metrics ~150, the latencies ~150, its task id); as two
# dicts with a float object for every figure: ~1,180
BYTES_PER_TASK = 800


def _entry(i: int) -> dict[str, Any]:
    solved = K - i % 3
    return {
        "task_id": f"task-{i:05d}", "tier": f"T{1 + i % 4}", "suite": "golden",
        "policy": "ALWAYS_PASSES", "metric": "pass^k", "k": K, "n": K, "pass_n": K,
        "passed": K, "solved": solved, "undetermined": 0, "infra_errors": 0, "pass_k": 1.0,
        "solve_k": 1.0 if solved == K else 0.0, "pass_at_k": 1.0, "flaky": solved < K,
        "metrics": {"turns": 2.0, "tool_calls": 1.0, "tokens": 320.0,
                    "cost_usd": 0.0004 + 0.0001 * (i % 3), "latency_p50_s": 0.5,
                    "latency_p95_s": 0.9, "latencies_s": [0.5 + 0.1 * t for t in range(K)],
                    "trials": K},
    }


def _write(path: Path) -> Path:
    doc = {"format": "trialrun-baseline/1", "model": "m-2026-01-01", "provider": "p",
           "tasks": [_entry(i) for i in range(TASKS)], "aggregate": {"tasks": TASKS}}
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_a_read_baseline_holds_a_few_hundred_bytes_a_task(tmp_path: Path) -> None:
    path = _write(tmp_path / "p-m.json")
    tracemalloc.start()
    try:
        baseline = load_baseline(path)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(baseline.tasks) == TASKS
    assert held / TASKS < BYTES_PER_TASK, held / TASKS


def test_it_reads_and_writes_back_as_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "p-m.json")
    baseline = load_baseline(path)
    entry = baseline.tasks[1]
    assert entry["task_id"] == "task-00001" and entry.get("solved") == K - 1
    assert entry.get("absent", 7) == 7 and "metrics" in entry and "absent" not in entry
    assert entry == _entry(1) | {"metrics": entry["metrics"]}
    assert entry["metrics"]["latencies_s"].tolist() == _entry(1)["metrics"]["latencies_s"]
    written = json.loads(json.dumps(baseline.to_json()))
    assert written["tasks"] == [_entry(i) for i in range(TASKS)]
    assert list(written["tasks"][0]) == list(_entry(0))  # the file's key order
    again = Baseline.from_json(written)
    assert again.tasks == written["tasks"]
