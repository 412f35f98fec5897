"""How fast the history records and reports: runs recorded per second (one transaction
each: a run, its task × model outcomes and their trials), with one writer and with two
writer processes at once, and the time `build_report` takes over the last 7 runs.

Usage: python bench/history_store.py [--runs 200] [--tasks 20] [--k 3]
                                      [--store postgresql://…]   (default: a temp SQLite)
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import time
from pathlib import Path

from trialrun.history import HistoryStore, Outcome, RunRecord, TrialRecord, build_report


def _record(url: str, prefix: str, runs: int, tasks: int, k: int) -> None:
    with HistoryStore.open(url) as store:
        for i in range(runs):
            store.record(RunRecord(
                f"{prefix}-{i}", f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:"
                f"{i % 60:02d}Z", "nightly", models=["m"],
                outcomes=[Outcome(f"task-{t}", "m", k=k, trials=[
                    TrialRecord(j, "solved" if (i + t + j) % 7 else "failed")
                    for j in range(k)]) for t in range(tasks)],
            ))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--store", default=None)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="trialrun-bench-")
    url = args.store or str(Path(tmp) / "history.db")
    kind = "postgresql" if url.startswith("postgres") else "sqlite"
    HistoryStore.open(url).close()  # migrate outside the clock

    start = time.perf_counter()
    _record(url, "one", args.runs, args.tasks, args.k)
    one = args.runs / (time.perf_counter() - start)

    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_record, args=(url, f"two{p}", args.runs, args.tasks, args.k))
             for p in range(2)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    two = 2 * args.runs / (time.perf_counter() - start)

    with HistoryStore.open(url) as store:
        start = time.perf_counter()
        report = build_report(store, last=7)
        report_s = time.perf_counter() - start
        stored = len(store.runs())
    trials = args.tasks * args.k
    print(f"{kind}: one writer {one:.0f} runs/s ({one * trials:.0f} trials/s); "
          f"two writers {two:.0f} runs/s together; {stored} runs stored "
          f"(expected {3 * args.runs}); report over the last 7: {report_s * 1000:.0f} ms "
          f"({len(report.rows)} rows)")
    print(json.dumps({"store": kind, "runs": args.runs, "tasks": args.tasks, "k": args.k,
                      "one_writer_runs_per_s": round(one, 1),
                      "two_writers_runs_per_s": round(two, 1), "stored": stored,
                      "report_ms": round(report_s * 1000, 1)}))


if __name__ == "__main__":
    main()
