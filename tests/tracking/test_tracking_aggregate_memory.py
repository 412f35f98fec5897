"""A baseline's (and a comparison's) aggregate over 10,000 tasks holds one packed sorted
copy of the trial latencies (8 bytes a trial), not their concatenation besides."""

from __future__ import annotations

import tracemalloc
from array import array

from trialrun.metrics import percentile
from trialrun.tracking._aggregate import TaskCounts, aggregate_counts
from trialrun.tracking._counts import pooled_figures

TASKS, K = 10_000, 10
# today ~10-12 (the sorted copy, the chunk being sorted, a cost a task packed); before:
# 18-23 (the concatenated latencies, their sorted copy, a float object a task in a list)
BYTES_PER_TRIAL = 15


def _tasks() -> list[TaskCounts]:
    out = []
    for t in range(TASKS):
        latencies = array("d", ((t * 31 + i * 7919) % 1009 / 100 + 0.001 for i in range(K)))
        out.append(TaskCounts(
            task_id=f"t{t}", suite="golden", tier=None, policy=None, n=K, passed=K,
            solved=K - t % 2, undetermined=0, pass_k=1.0, solve_k=float(1 - t % 2),
            flaky=t % 2 == 1, k=K,
            metrics={"latencies_s": latencies, "trials": K, "cost_usd": 0.001 * (t % 7)}))
    return out


def test_the_aggregate_holds_the_latencies_once() -> None:
    tasks = _tasks()
    tracemalloc.start()
    try:
        aggregate = aggregate_counts(tasks)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    pooled = array("d", (x for t in tasks for x in t.metrics["latencies_s"]))
    assert aggregate["latency_p50_s"] == percentile(pooled, 50)
    assert aggregate["latency_p95_s"] == percentile(pooled, 95)
    assert peak / (TASKS * K) < BYTES_PER_TRIAL, peak / (TASKS * K)


def test_the_pooled_p95_holds_the_latencies_once() -> None:
    tasks = _tasks()
    tracemalloc.start()
    try:
        p95, _ = pooled_figures(tasks)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    pooled = array("d", (x for t in tasks for x in t.metrics["latencies_s"]))
    assert p95 == percentile(pooled, 95)
    assert peak / (TASKS * K) < BYTES_PER_TRIAL, peak / (TASKS * K)
