"""What redacting a trial's lines costs: `dumps_line` (redacted) against plain encoding.

Runs the overhead benchmark's suite (bench/overhead.py: a tool call and an answer per
trial), reads its results and transcript lines back, then encodes every line both ways,
interleaved, and reports the microseconds redaction adds per trial (one results line and
one transcript line), beside the run's own ms per trial. A second figure: the same lines
holding a secret (a key in the final answer), which take the slow path.

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="number of tasks")
    parser.add_argument("-k", type=int, default=3, help="trials per task")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)

    import trialrun
    from trialrun.rundir import RunDir
    from trialrun.rundir._json import dumps_line
    from trialrun.tasks import load_tasks

    with tempfile.TemporaryDirectory(prefix=".trialrun-bench-") as tmp:
        root = Path(tmp)
        script = write_suite(root, args.n)
        config = trialrun.RunConfig(
            tasks=load_tasks([root / "tasks"]).tasks, models=[f"scripted:{script}"],
            k=args.k, out=root / "results", handle_sigint=False, argv=["bench"],
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
    plain = _per_line_us(lines, _plain, args.rounds)
    redacted = _per_line_us(lines, dumps_line, args.rounds)
    leaky = [{**line, "final_text": "key sk-ant-api03-" + "A" * 40} for line in lines]
    slow = _per_line_us(leaky, dumps_line, args.rounds)
    figures = {
        "trials": trials,
        "run_ms_per_trial": round(wall * 1000 / trials, 3),
        "encode_us_per_trial": round(2 * plain, 1),
        "redacted_encode_us_per_trial": round(2 * redacted, 1),
        "redaction_us_per_trial": round(2 * (redacted - plain), 1),
        "redaction_share_of_trial": round(2 * (redacted - plain) / (wall * 1e6 / trials), 4),
        "with_a_secret_us_per_trial": round(2 * slow, 1),
    }
    print(f"redaction adds {figures['redaction_us_per_trial']} µs per trial "
          f"({figures['redaction_share_of_trial']:.1%} of {figures['run_ms_per_trial']} ms); "
          f"a trial whose lines hold a secret: {figures['with_a_secret_us_per_trial']} µs")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
