"""τ-bench's leaderboard row recomputed from a published results file.

Imports the file with `trialrun import tau-bench` (into a temporary run folder) and
prints τ-bench's pass^1 … pass^n: the mean over tasks of C(c,k)/C(n,k), c the trials
with reward 1 of the task's n (trialrun's solve^k; trialrun's own pass^k is "the episode
ran to its end"). With --env, each trial's recorded tool calls are replayed in trialrun's
τ-bench environment and its reward compared with the recorded one.

    python bench/taubench_leaderboard.py tau-bench/historical_trajectories/gpt-4o-airline.json \\
        --env tau-bench --domain airline

Prints the row (Markdown) and a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from trialrun.benchmarks.taubench_results import solve_curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a τ-bench results file")
    parser.add_argument("--env", type=Path, help="a τ-bench checkout: rescore in it")
    parser.add_argument("--domain", help="airline | retail (default: from the file name)")
    parser.add_argument("--model", help="PROVIDER:MODEL (default: from the file name)")
    args = parser.parse_args()
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
        curve = solve_curve(out)
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
    print(json.dumps(result))


if __name__ == "__main__":
    main()
