"""Task loading: milliseconds per YAML task file, the fast reader vs the round trip only.

Writes N single-task YAML files (two graders, tags, a fixture) and times
`trialrun.tasks.load_tasks` on the folder in this process, paired per repetition with
the same load with the fast reader switched off (every file through ruamel's round trip,
as before). Each repetition's figure is the best of --repeat loads; --repeats
repetitions (at least 3) give min/median/max, the load at each, and the paired ratio.
Goal: at most 0.5 ms per file (judged on the median).

    python bench/task_loading.py --n 1000

Prints the figures and a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _repeat import add_repeats_arg, paired

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
    parser.add_argument("--repeat", type=int, default=3, help="loads per repetition (best)")
    add_repeats_arg(parser)
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
        original = fast._parser

        def fast_ms() -> float:
            return best_ms_per_file(root / "tasks", args.n, args.repeat)

        def slow_ms() -> float:
            fast._parser.cache_clear()
            fast._parser = lambda: None  # type: ignore[assignment]
            try:
                return best_ms_per_file(root / "tasks", args.n, args.repeat)
            finally:
                fast._parser = original

        slow_s, fast_s, ratio = paired("ms per file", slow_ms, fast_ms, args.repeats, "ms")
    slow_s.name, fast_s.name = "round trip only (ruamel)", "fast reader (libyaml)"
    ratio.name = "round trip / fast reader, paired"
    met = fast_s.median <= GOAL_MS
    print(f"{args.n} YAML task files, each repetition the best of {args.repeat} loads")
    print(f"  {fast_s.line()}  [goal ≤ {GOAL_MS} ms: {'met' if met else 'NOT met'}]")
    print(f"  {slow_s.line()}")
    print(f"  {ratio.line('.2f')}")
    print(json.dumps({"files": args.n, "fast_ms_per_file": fast_s.as_json(),
                      "round_trip_ms_per_file": slow_s.as_json(),
                      "round_trip_over_fast": ratio.as_json(), "goal_met": met}))
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
