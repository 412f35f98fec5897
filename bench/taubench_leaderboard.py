"""τ-bench's leaderboard row recomputed from a published results file.

Imports the file with `trialrun import tau-bench` (into a temporary run folder) and
prints τ-bench's pass^1 … pass^n: the mean over tasks of C(c,k)/C(n,k), c the trials
with reward 1 of the task's n (trialrun's solve^k; trialrun's own pass^k is "the episode
ran to its end"). With --env, each trial's recorded tool calls are replayed in trialrun's
τ-bench environment and its reward compared with the recorded one.

    python bench/taubench_leaderboard.py tau-bench/historical_trajectories/gpt-4o-airline.json \\
        --env tau-bench --domain airline

The import (and rescoring) runs --repeats times (at least 3): the row must be the same
each time (it is exact), and the time of an import is printed as min/median/max with
the load at each. Prints the row (Markdown) and a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _repeat import Series, add_repeats_arg, load_now

from trialrun.benchmarks.taubench_results import solve_curve


def import_once(args: argparse.Namespace) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """`trialrun import tau-bench` into a temporary folder: (its JSON, the solve curve)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        command = [sys.executable, "-m", "trialrun", "import", "tau-bench", str(args.results),
                   "-o", str(out), "--json"]
        for flag, value in (("--domain", args.domain), ("--model", args.model)):
            if value:
                command += [flag, value]
        if args.env is not None:
            command += ["--env", str(args.env), "--rescore"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(done.stderr.strip() or f"trialrun import exited {done.returncode}")
        imported = json.loads(done.stdout)
        imported.pop("run_dir", None)  # a fresh temporary folder each time
        return imported, list(solve_curve(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a τ-bench results file")
    parser.add_argument("--env", type=Path, help="a τ-bench checkout: rescore in it")
    parser.add_argument("--domain", help="airline | retail (default: from the file name)")
    parser.add_argument("--model", help="PROVIDER:MODEL (default: from the file name)")
    add_repeats_arg(parser)
    args = parser.parse_args()
    seconds = Series("trialrun import tau-bench" + (" --rescore" if args.env else ""), "s")
    seen = []
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        started = time.perf_counter()
        seen.append(import_once(args))
        seconds.add(time.perf_counter() - started, load)
    imported, curve = seen[0]
    if any(other != seen[0] for other in seen):
        sys.exit("taubench_leaderboard: the imports differ between repetitions")
    model = imported["model"]
    figures = {f"pass^{k}": round(float(value), 3) for k, value in curve}
    head = "| model | domain | tasks | trials | " + " | ".join(figures) + " |"
    if args.env is not None:
        head += " rescored: agree |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    row = (f"| {model} | {imported['domain'] or '?'} | {imported['tasks']} | "
           f"{imported['trials']} | " + " | ".join(f"{v:.3f}" for v in figures.values()) + " |")
    if args.env is not None:
        row += f" {imported['agree']}/{imported['trials']} |"
    print(row)
    result = {"model": model, "model_from": imported["model_from"],
              "domain": imported["domain"], "tasks": imported["tasks"],
              "trials": imported["trials"], **figures,
              "exact": {f"pass^{k}": str(value) for k, value in curve}}
    if args.env is not None:
        result.update({"agree": imported["agree"], "disagree": imported["disagree"],
                       "task_mismatch": imported["task_mismatch"],
                       "instruction_reworded": len(imported["instruction_reworded"])})
    print(f"{seconds.line()}; the row was the same in every repetition")
    result["import_seconds"] = seconds.as_json()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
