"""Task loading: milliseconds per YAML task file, the fast reader vs the round trip only.

Writes N single-task YAML files (two graders, tags, a fixture) and times
`trialrun.tasks.load_tasks` on the folder, best of --repeat, in this process; then the
same with the fast reader switched off (every file through ruamel's round trip, as
before). Goal: at most 0.5 ms per file.

    python bench/task_loading.py --n 1000

Prints both figures and a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

TEMPLATE = """task_id: t-{i:04d}
suite: golden
tier: T2
description: List a folder and count the notes in it.
tags: [list, qa]
inputs:
  prompt: How many notes are in the recipes folder? Answer with the number.
environment:
  fixture: notes
graders:
  - type: expectedTools
    tools: [list_files]
  - type: regex
    value: ['\\b3\\b', '\\bthree\\b']
    flags: i
tracked_metrics: [pass^k, solve^k]
trials: {{k: 3}}
"""
GOAL_MS = 0.5


def best_ms_per_file(folder: Path, n: int, repeat: int) -> float:
    from trialrun.tasks import load_tasks

    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        report = load_tasks([folder])
        best = min(best, time.perf_counter() - started)
        assert len(report.tasks) == n and not report.problems, report.problems[:3]
    return best * 1000 / n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    import trialrun.tasks._fast_yaml as fast  # the switch for the comparison

    with tempfile.TemporaryDirectory(prefix=".trialrun-load-") as tmp:
        root = Path(tmp)
        (root / "fixtures" / "notes").mkdir(parents=True)
        (root / "fixtures" / "notes" / "a.md").write_text("hi\n")
        (root / "tasks").mkdir()
        for i in range(args.n):
            (root / "tasks" / f"t{i:04d}.yaml").write_text(TEMPLATE.format(i=i))
        best_ms_per_file(root / "tasks", args.n, 1)  # imports and registries: not timed
        fast_ms = best_ms_per_file(root / "tasks", args.n, args.repeat)
        fast._parser.cache_clear()
        original = fast._parser
        fast._parser = lambda: None  # type: ignore[assignment]
        try:
            slow_ms = best_ms_per_file(root / "tasks", args.n, args.repeat)
        finally:
            fast._parser = original
    met = fast_ms <= GOAL_MS
    print(f"{args.n} YAML task files, best of {args.repeat}")
    print(f"  fast reader (libyaml) : {fast_ms:.3f} ms/file  [goal ≤ {GOAL_MS} ms: "
          f"{'met' if met else 'NOT met'}]")
    print(f"  round trip only       : {slow_ms:.3f} ms/file  ({slow_ms / fast_ms:.1f}× slower)")
    print(json.dumps({"files": args.n, "fast_ms_per_file": round(fast_ms, 4),
                      "round_trip_ms_per_file": round(slow_ms, 4), "goal_met": met}))
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
