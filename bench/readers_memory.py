"""Peak memory of the run readers (bless, compare, gate) at 10k, 50k and 100k trials.

A synthetic run folder (TASKS = trials / K tasks × K trials, one model, a verdict and a
tool call per trial, no transcripts) is written through `trialrun.rundir`; each reader
then runs in a fresh child process, which prints its own peak resident set size:

- bless:   `trialrun.tracking.bless(run)` into an empty baselines folder;
- compare: `trialrun.tracking.compare_runs(run, run)` (the run read twice);
- gate:    `trialrun.tracking.run_gate("merge", run)` without a baseline;
- gate+baseline: `trialrun gate merge RUN --baselines DIR`, the CLI a CI merge gate runs,
           against the baseline bless wrote (the comparison, its bootstrap bounds and the
           baseline file's entries; exit 1 is the synthetic suite's missing suites).

A reader in constant memory prints about the same peak at every size; the last lines
give the growth per trial from the smallest to the largest size. With the default K the
tasks grow with the trials (trials / K of them), so that growth is mostly per task;
`--tasks N` holds the tasks at N (k = trials / N) to show what a trial alone costs.
`--stored-summary` writes summary.json into the run as a finished run has it (the readers
then take its rows; by default the run has none and the summary is recomputed).
Each child also prints its wall time: compare's and gate+baseline's are reported (times are
inflated by load).

    python bench/readers_memory.py                  # 10k, 50k, 100k trials, 3 repetitions
    python bench/readers_memory.py --sizes 30000 100000 --repeats 3
    python bench/readers_memory.py --sizes 30000 100000 --tasks 1000
    python bench/readers_memory.py --sizes 30000 100000 --stored-summary
    python bench/readers_memory.py --sizes 30000 100000 --readers gate+baseline
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _repeat import Series, add_repeats_arg, repeat  # noqa: E402

MODEL = "openai-compat:bench-model-2026-01-01"
K = 10
READERS = ("bless", "compare", "gate", "gate+baseline")


def write_run(out: Path, trials: int, k: int = K, tasks: int | None = None,
              stored_summary: bool = False) -> Path:
    """A finished run folder of trials / k tasks × k trials (or `tasks` tasks × trials /
    tasks trials), lines only (with `stored_summary`: and summary.json)."""
    from trialrun.metrics import summarize_rundir
    from trialrun.rundir import Manifest, ResultLine, RunDir

    if tasks is not None:
        k = max(trials // tasks, 1)
    tasks = max(trials // k, 1)
    metas = [{"task_id": f"task-{i:05d}", "suite": ("golden", "adversarial")[i % 2],
              "tier": f"T{1 + i % 4}", "tags": [f"tag{i % 7}"], "policy": "ALWAYS_PASSES",
              "k": k, "metric": "pass^k"} for i in range(tasks)]
    run_id = f"20260101T000000Z-m{trials}"
    manifest = Manifest(run_id=run_id, started_at="2026-01-01T00:00:00+00:00",
                        models=[MODEL], trialrun_version="bench", tasks=metas)
    run = RunDir.create(out, run_id, manifest, fsync=False)
    for i, meta in enumerate(metas):
        for trial in range(k):
            ok = (i * 7 + trial * 3) % 10 > 0
            run.append(ResultLine(
                task_id=str(meta["task_id"]), model=MODEL, trial=trial, passed=True, solve=ok,
                provider="openai-compat",
                verdicts=[{"grader": "contains", "passed": ok, "details": {"text": "42"}}],
                tool_calls=[{"name": "read_file", "arguments": {"path": f"n/{i}"}, "ok": True}],
                turns=2, tokens={"prompt": 300, "cached": 0, "completion": 20},
                cost_usd=0.0004 + 0.0001 * (trial % 3), latency_s=0.5 + (i % 13) * 0.1,
                extra={"suite": meta["suite"], "tier": meta["tier"]}), sync=False)
    run.close()
    if stored_summary:
        run.write_summary(summarize_rundir(run))
    return run.path


def peak_mb() -> float:
    """This process's own peak RSS in MB: /proc's VmHWM, which starts anew at exec.

    `ru_maxrss` of a child started by fork + exec keeps the parent's RSS at the fork (the
    bench's parent holds the run it wrote, ~100 MB at 100k trials with --stored-summary),
    so a reader below that would print the parent's figure."""
    try:
        status = Path("/proc/self/status").read_text(encoding="utf-8")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kb = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(kb) / 1024


def child(reader: str, run: str, baselines: str) -> None:
    """Run one reader in this (fresh) process; print its seconds and peak RSS in MB."""
    from trialrun.cli import main as cli
    from trialrun.tracking import bless, compare_runs, run_gate

    started = time.perf_counter()
    if reader == "bless":
        bless(run, baselines)
    elif reader == "compare":
        compare_runs(run, run, alpha=0.05, method="exact")
    elif reader == "gate":
        run_gate("merge", run, baselines_dir=baselines)
    else:  # the command line, its report printed to stdout (taken in by the bench)
        sys.argv = ["trialrun", "gate", "merge", run, "--baselines", baselines]
        try:
            cli()
        except SystemExit as exc:
            if exc.code not in (0, 1):  # 2: bad input, the bench's own fault
                raise
    print(time.perf_counter() - started)
    print(peak_mb())


def measure(reader: str, run: Path, baselines: Path) -> tuple[float, float]:
    """(peak MB, seconds) of one reader in a fresh process."""
    if reader == "bless":
        shutil.rmtree(baselines, ignore_errors=True)
        baselines.mkdir()
    if reader == "gate":
        baselines = baselines.with_name(baselines.name + "-empty")
        baselines.mkdir(exist_ok=True)
    out = subprocess.run(
        [sys.executable, __file__, "--child", reader, str(run), str(baselines)],
        check=True, capture_output=True, text=True,
    )
    *_, seconds, peak = out.stdout.split()
    return float(peak), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    add_repeats_arg(parser)
    parser.add_argument("--readers", nargs="+", choices=READERS, default=list(READERS),
                        help="the readers to measure (default: all; gate+baseline after bless)")
    parser.add_argument("--tasks", type=int, default=None,
                        help="hold the tasks at this many (k = trials / tasks); default: "
                             f"trials / {K} tasks of k = {K}")
    parser.add_argument("--stored-summary", action="store_true",
                        help="write summary.json into the run, as a finished run has it")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(*opts.child)
        return
    tmp = Path(tempfile.mkdtemp(prefix="trialrun-readers-bench-"))
    figures: dict[str, dict[str, object]] = {}
    try:
        medians: dict[str, dict[int, float]] = {r: {} for r in opts.readers}
        for size in opts.sizes:
            run = write_run(tmp / f"results-{size}", size, tasks=opts.tasks,
                            stored_summary=opts.stored_summary)
            baselines = tmp / f"baselines-{size}"
            if "gate+baseline" in opts.readers and "bless" not in opts.readers:
                measure("bless", run, baselines)  # the baseline it gates against
            for reader in opts.readers:
                seconds: list[float] = []

                def once(r: str = reader, p: Path = run, b: Path = baselines,
                         kept: list[float] = seconds) -> float:
                    peak, took = measure(r, p, b)
                    kept.append(took)
                    return peak

                series: Series = repeat(f"{reader} peak at {size} trials", once,
                                        opts.repeats, "MB")
                print(series.line(".1f"), flush=True)
                medians[reader][size] = series.median
                figures[f"{reader}_{size}"] = series.as_json()
                if reader in ("compare", "gate+baseline"):
                    timed = Series(f"{reader} time at {size} trials", "s")
                    for took, load in zip(seconds, series.loads, strict=True):
                        timed.add(took, load)
                    print(timed.line(".1f"), flush=True)
                    figures[f"{reader}_s_{size}"] = timed.as_json()
            shutil.rmtree(run.parent, ignore_errors=True)
        low, high = min(opts.sizes), max(opts.sizes)
        if high > low:
            for reader in opts.readers:
                grow = (medians[reader][high] - medians[reader][low]) * 1024 / (high - low)
                print(f"{reader}: {grow:.3f} KB per trial from {low} to {high} trials")
                figures[f"{reader}_kb_per_trial"] = {"median": round(grow, 3)}
        print(json.dumps(figures))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
