"""What redacting a trial's lines costs: `dumps_line` (redacted) against plain encoding.

Runs the overhead benchmark's suite (bench/overhead.py: a tool call and an answer per
trial), reads its results and transcript lines back, then encodes every line both ways,
interleaved, and reports the microseconds redaction adds per trial (one results line and
one transcript line), beside the run's own ms per trial. A second figure: the same lines
holding a secret (a key in the final answer), which take the slow path. Each figure is
min/median/max over --repeats repetitions (at least 3: a fresh run each), with the load.

    python bench/redaction_cost.py --n 200 -k 3

The last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _repeat import Series, add_repeats_arg, load_now  # noqa: E402
from overhead import write_suite  # noqa: E402


def _plain(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str,
                      allow_nan=False)


def _per_line_us(lines: list[Any], encode: Any, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):  # the best round: the least disturbed by other processes
        started = time.perf_counter()
        for line in lines:
            encode(line)
        best = min(best, time.perf_counter() - started)
    return best * 1e6 / len(lines)


def one_repetition(n: int, k: int, rounds: int) -> dict[str, float]:
    """One fresh run of the overhead suite, then its lines encoded both ways."""
    import trialrun
    from trialrun.rundir import RunDir
    from trialrun.rundir._json import dumps_line
    from trialrun.tasks import load_tasks

    with tempfile.TemporaryDirectory(prefix=".trialrun-bench-") as tmp:
        root = Path(tmp)
        script = write_suite(root, n)
        config = trialrun.RunConfig(
            tasks=load_tasks([root / "tasks"]).tasks, models=[f"scripted:{script}"],
            k=k, out=root / "results", handle_sigint=False, argv=["bench"],
        )
        started = time.perf_counter()
        outcome = trialrun.run(config)
        wall = time.perf_counter() - started
        run = RunDir.open(outcome.path)
        results = [line.to_json() for line in run.results()]
        transcripts = [run.transcript(line).to_json() for line in run.results()]
        run.close()
    trials = len(results)
    lines = results + transcripts
    plain = _per_line_us(lines, _plain, rounds)
    redacted = _per_line_us(lines, dumps_line, rounds)
    leaky = [{**line, "final_text": "key sk-ant-api03-" + "A" * 40} for line in lines]
    slow = _per_line_us(leaky, dumps_line, rounds)
    return {
        "run_ms_per_trial": wall * 1000 / trials,
        "encode_us_per_trial": 2 * plain,
        "redacted_encode_us_per_trial": 2 * redacted,
        "redaction_us_per_trial": 2 * (redacted - plain),
        "redaction_share_of_trial_pct": 100 * 2 * (redacted - plain) / (wall * 1e6 / trials),
        "with_a_secret_us_per_trial": 2 * slow,
    }


UNITS = {"run_ms_per_trial": "ms", "redaction_share_of_trial_pct": "%"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="number of tasks")
    parser.add_argument("-k", type=int, default=3, help="trials per task")
    parser.add_argument("--rounds", type=int, default=7, help="encodings per line (best)")
    add_repeats_arg(parser)
    args = parser.parse_args(argv)
    series: dict[str, Series] = {}
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        for name, value in one_repetition(args.n, args.k, args.rounds).items():
            series.setdefault(name, Series(name, UNITS.get(name, "µs"))).add(value, load)
    print(f"{args.n} tasks × k={args.k}, scripted model (bench/overhead.py's suite)")
    for one in series.values():
        print(f"  {one.line()}")
    print(json.dumps({"trials": args.n * args.k,
                      **{name: one.as_json() for name, one in series.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
