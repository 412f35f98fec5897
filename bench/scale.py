"""Memory at scale: one run of N trials with the scripted model, then every reader of it.

Each step is its own `python -m trialrun …` process, and its peak RSS is the kernel's
own accounting of that child (`wait4`): the run (trials, end-of-run summary and table),
then `summarize`, `bless`, `compare`, `gate merge` and `report --junit --markdown` on the
finished run folder. The goal is a peak of at most 150 MB for each.

    python bench/scale.py                    # 1000 tasks × k=100 = 100,000 trials
    python bench/scale.py --tasks 100 -k 10  # a quick look

Prints one line per step (wall seconds, peak RSS, exit code) and a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_MB = 150.0
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from overhead import write_suite  # noqa: E402


def child(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of one process, its output discarded."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):  # 1: a gate or comparison that failed, still a read
        sys.stderr.write(err.decode("utf-8", "replace")[-2000:])
    return wall, usage.ru_maxrss / 1024, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000, help="number of tasks")
    parser.add_argument("-k", type=int, default=100, help="trials per task")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="scratch folder (removed)")
    args = parser.parse_args(argv)

    trialrun = [sys.executable, "-m", "trialrun"]
    steps: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix=".trialrun-scale-", dir=args.dir) as tmp:
        root = Path(tmp)
        script = write_suite(root, args.tasks)
        model = f"scripted:{script}"
        run_argv = [
            *trialrun, "run", "tasks", "-m", model, "-k", str(args.k),
            "--out", "results", "-j", str(args.concurrency),
        ]
        wall, peak, code = child(run_argv, root)
        runs = [p for p in (root / "results").iterdir() if not p.name.startswith(".")]
        if code != 0 or len(runs) != 1:
            print(f"the run failed (exit {code})", file=sys.stderr)
            return 1
        run = str(runs[0].relative_to(root))
        size_mb = (runs[0] / "results.jsonl").stat().st_size / 1e6
        trials = args.tasks * args.k
        steps.append({"step": "run", "wall_s": wall, "peak_mb": peak, "exit": code})
        readers = {
            "summarize": ["summarize", run],
            "bless": ["bless", run, "--baselines", "baselines"],
            "compare": ["compare", run, "--baselines", "baselines"],
            "gate merge": ["gate", "merge", run, "--baselines", "baselines"],
            "report": ["report", run, "--junit", "junit.xml", "--markdown", "report.md"],
        }
        for name, extra in readers.items():
            wall, peak, code = child([*trialrun, *extra], root)
            steps.append({"step": name, "wall_s": wall, "peak_mb": peak, "exit": code})

    print(f"{trials} trials ({args.tasks} tasks × k={args.k}), results.jsonl {size_mb:.1f} MB")
    for s in steps:
        mark = "ok" if float(s["peak_mb"]) <= GOAL_MB else "OVER"  # type: ignore[arg-type]
        print(
            f"  {s['step']:<11} {float(s['wall_s']):8.1f} s  peak RSS "  # type: ignore[arg-type]
            f"{float(s['peak_mb']):6.1f} MB  exit {s['exit']}  [{mark} ≤ {GOAL_MB:.0f} MB]"  # type: ignore[arg-type]
        )
    met = all(float(s["peak_mb"]) <= GOAL_MB for s in steps)  # type: ignore[arg-type]
    print(f"goal (every peak ≤ {GOAL_MB:.0f} MB): {'met' if met else 'NOT met'}")
    print(json.dumps({"trials": trials, "results_mb": round(size_mb, 1), "goal_met": met,
                      "steps": [{**s, "wall_s": round(float(s["wall_s"]), 2),  # type: ignore[arg-type]
                                 "peak_mb": round(float(s["peak_mb"]), 1)} for s in steps]}))
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
