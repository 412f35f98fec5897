"""How fast the history records and reports: runs recorded per second (one transaction
each: a run, its task × model outcomes and their trials), with one writer and with two
writer processes at once, and the time `build_report` takes over the last 7 runs; each
figure min/median/max over --repeats repetitions (at least 3, each into a fresh store)
with the load at each.

Usage: python bench/history_store.py [--runs 200] [--tasks 20] [--k 3] [--repeats 3]
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

from _repeat import Series, add_repeats_arg, load_now

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
    add_repeats_arg(parser)
    args = parser.parse_args()
    kind = "postgresql" if (args.store or "").startswith("postgres") else "sqlite"
    one = Series("one writer", "runs/s")
    two = Series("two writers together", "runs/s")
    report_ms = Series("report over the last 7 runs", "ms")
    stored: list[int] = []
    for rep in range(max(args.repeats, 3)):
        load = load_now()
        url = args.store or str(Path(tempfile.mkdtemp(prefix="trialrun-bench-")) / "history.db")
        HistoryStore.open(url).close()  # migrate outside the clock
        tag = f"r{rep}-{time.time_ns()}"

        start = time.perf_counter()
        _record(url, f"{tag}-one", args.runs, args.tasks, args.k)
        one.add(args.runs / (time.perf_counter() - start), load)

        ctx = multiprocessing.get_context("fork")
        procs = [ctx.Process(target=_record,
                             args=(url, f"{tag}-two{p}", args.runs, args.tasks, args.k))
                 for p in range(2)]  # fmt: skip
        start = time.perf_counter()
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        two.add(2 * args.runs / (time.perf_counter() - start), load)

        with HistoryStore.open(url) as store:
            start = time.perf_counter()
            report = build_report(store, last=7)
            report_ms.add((time.perf_counter() - start) * 1000, load)
            stored.append(len(store.runs()))
    trials = args.tasks * args.k
    print(f"{kind}, {args.tasks} tasks × k={args.k} per run ({trials} trials), "
          f"{args.runs} runs per writer; {len(report.rows)} report rows")
    for series in (one, two, report_ms):
        print(f"  {series.line()}")
    print(f"  runs stored per repetition: {stored} (expected {3 * args.runs} each"
          f"{'' if args.store is None else ', more in a shared store'})")
    print(json.dumps({"store": kind, "runs": args.runs, "tasks": args.tasks, "k": args.k,
                      "one_writer_runs_per_s": one.as_json(),
                      "two_writers_runs_per_s": two.as_json(), "stored": stored,
                      "report_ms": report_ms.as_json()}))

if __name__ == "__main__":
    main()
