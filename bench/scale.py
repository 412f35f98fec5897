"""Memory at scale: one run of N trials with the scripted model, then every reader of it.

Each step is its own `python -m trialrun …` process, and its peak RSS is the kernel's
own accounting of that child (`wait4`): the run (trials, end-of-run summary and table),
then `summarize`, `bless`, `compare`, `gate merge` and `report --junit --markdown` on the
finished run folder. The goal is a peak of at most 150 MB for each.

    python bench/scale.py                    # 1000 tasks × k=100 = 100,000 trials
    python bench/scale.py --tasks 100 -k 10  # a quick look

The whole sequence runs --repeats times (at least 3, a fresh run folder each); per step
it prints min/median/max of the wall seconds and of the peak RSS, with the load at each
repetition, and a JSON object last.
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

from _repeat import Series, add_repeats_arg, load_now  # noqa: E402
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


READERS = {
    "summarize": ["summarize", "RUN"],
    "bless": ["bless", "RUN", "--baselines", "baselines"],
    "compare": ["compare", "RUN", "--baselines", "baselines"],
    "gate merge": ["gate", "merge", "RUN", "--baselines", "baselines"],
    "report": ["report", "RUN", "--junit", "junit.xml", "--markdown", "report.md"],
}


def one_repetition(args: argparse.Namespace) -> tuple[list[tuple[str, float, float, int]], float]:
    """The run and each reader once: [(step, wall s, peak MB, exit)], results.jsonl MB."""
    trialrun = [sys.executable, "-m", "trialrun"]
    steps: list[tuple[str, float, float, int]] = []
    with tempfile.TemporaryDirectory(prefix=".trialrun-scale-", dir=args.dir) as tmp:
        root = Path(tmp)
        script = write_suite(root, args.tasks)
        run_argv = [
            *trialrun, "run", "tasks", "-m", f"scripted:{script}", "-k", str(args.k),
            "--out", "results", "-j", str(args.concurrency),
        ]
        wall, peak, code = child(run_argv, root)
        runs = [p for p in (root / "results").iterdir() if not p.name.startswith(".")]
        if code != 0 or len(runs) != 1:
            raise SystemExit(f"the run failed (exit {code})")
        run = str(runs[0].relative_to(root))
        size_mb = (runs[0] / "results.jsonl").stat().st_size / 1e6
        steps.append(("run", wall, peak, code))
        for name, extra in READERS.items():
            wall, peak, code = child([*trialrun, *(run if a == "RUN" else a for a in extra)],
                                     root)
            steps.append((name, wall, peak, code))
    return steps, size_mb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000, help="number of tasks")
    parser.add_argument("-k", type=int, default=100, help="trials per task")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="scratch folder (removed)")
    add_repeats_arg(parser)
    args = parser.parse_args(argv)

    walls: dict[str, Series] = {}
    peaks: dict[str, Series] = {}
    exits: dict[str, set[int]] = {}
    size_mb = 0.0
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        steps, size_mb = one_repetition(args)
        for name, wall, peak, code in steps:
            walls.setdefault(name, Series(f"{name} wall", "s")).add(wall, load)
            peaks.setdefault(name, Series(f"{name} peak RSS", "MB")).add(peak, load)
            exits.setdefault(name, set()).add(code)
    trials = args.tasks * args.k
    print(f"{trials} trials ({args.tasks} tasks × k={args.k}), results.jsonl {size_mb:.1f} MB")
    for name, peak in peaks.items():
        mark = "ok" if peak.high <= GOAL_MB else "OVER"
        print(f"  {peak.line('.1f')}  exit {sorted(exits[name])}  [{mark} ≤ {GOAL_MB:.0f} MB]")
        print(f"  {walls[name].line('.1f')}")
    met = all(peak.high <= GOAL_MB for peak in peaks.values())
    print(f"goal (every peak ≤ {GOAL_MB:.0f} MB in every repetition): "
          f"{'met' if met else 'NOT met'}")
    print(json.dumps({"trials": trials, "results_mb": round(size_mb, 1), "goal_met": met,
                      "steps": [{"step": name, "wall_s": walls[name].as_json(),
                                 "peak_mb": peak.as_json(), "exit": sorted(exits[name])}
                                for name, peak in peaks.items()]}))
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
