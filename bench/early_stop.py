"""--early-stop against a full run: the example suite, the embedded model, back to back.

Runs `trialrun run PATH -m MODEL` and then the same with `--early-stop`, each in its own
process (the model loads in each; nothing is shared), and prints per side the trials
run, the wall time and the tokens (prompt + completion, from the summary), the savings,
and whether every task's verdict is the same: a pass^k task met (solve^k = 1) or not, a
pass@k task met (pass@k = 1, at least one trial solved) or not, a settled task's
`settled` standing in for the figure it did not measure.

    python bench/early_stop.py                      # examples/, the embedded model
    python bench/early_stop.py --model scripted:examples/scripts/bad.yaml   # seconds

Prints the figures and a JSON object last.
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

ROOT = Path(__file__).resolve().parents[1]
MEETS = 1 - 1e-12


def verdict(row: dict[str, Any]) -> bool | None:
    """Met or not, as early stop settles it (None: no figure and not settled)."""
    if "settled" in row:
        return row["settled"] == "met"
    figure = row.get("pass_at_k") if row.get("metric") == "pass@k" else row.get("solve_k")
    return None if figure is None else figure >= MEETS


def run_side(path: str, model: str, out: Path, early: bool) -> dict[str, Any]:
    argv = [sys.executable, "-m", "trialrun", "run", path, "-m", model, "--json",
            "--out", str(out), *(["--early-stop"] if early else [])]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}\n{proc.stderr}")
    summary = json.loads(proc.stdout)
    (agg,) = summary["aggregate"].values()
    tokens = agg.get("tokens") or {}
    return {
        "trials": summary["finished_trials"],
        "expected": summary["expected_trials"],
        "wall_s": round(wall, 1),
        "tokens": int(tokens.get("prompt", 0)) + int(tokens.get("completion", 0)),
        "settled": agg.get("settled", 0),
        "verdicts": {r["task_id"]: verdict(r) for r in summary["tasks"]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="examples/")
    parser.add_argument("--model", default="local")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        full = run_side(args.path, args.model, Path(out) / "full", early=False)
        early = run_side(args.path, args.model, Path(out) / "early", early=True)
    differ = sorted(t for t, v in full["verdicts"].items() if early["verdicts"].get(t) != v)
    for name, side in (("full", full), ("--early-stop", early)):
        print(f"{name:>13}: {side['trials']}/{side['expected']} trials, {side['wall_s']} s, "
              f"{side['tokens']:,} tokens, {side['settled']} task(s) settled early")  # fmt: skip
    saved = {
        "trials": full["trials"] - early["trials"],
        "wall_s": round(full["wall_s"] - early["wall_s"], 1),
        "tokens": full["tokens"] - early["tokens"],
    }
    print(f"saved: {saved['trials']} trials, {saved['wall_s']} s, {saved['tokens']:,} tokens")
    print("verdicts: " + ("the same for every task" if not differ else f"differ: {differ}"))
    print(json.dumps({"model": args.model, "full": full, "early_stop": early, "saved": saved,
                      "verdicts_differ": differ}))  # fmt: skip


if __name__ == "__main__":
    main()
