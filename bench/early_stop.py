"""--early-stop against a full run: the example suite, the embedded model, back to back.

Runs `trialrun run PATH -m MODEL` and then the same with `--early-stop`, each in its own
process (the model loads in each; nothing is shared), and prints per side the trials
run, the wall time and the tokens (prompt + completion, from the summary), the savings,
and whether every task's verdict is the same: a pass^k task met (solve^k = 1) or not, a
pass@k task met (pass@k = 1, at least one trial solved) or not, a settled task's
`settled` standing in for the figure it did not measure.

    python bench/early_stop.py                      # examples/, the embedded model
    python bench/early_stop.py --model scripted:examples/scripts/bad.yaml   # seconds

The pair (full, then early stop) runs --repeats times (at least 3); the wall time, the
trials and the tokens are printed as min/median/max per side with the load, and early
stop over full paired per repetition. Prints the figures and a JSON object last.
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
    add_repeats_arg(parser)
    args = parser.parse_args()
    keys = (("trials", ""), ("wall_s", "s"), ("tokens", "tokens"))
    sides = {name: {key: Series(f"{name} {key}", unit) for key, unit in keys}
             for name in ("full", "--early-stop")}  # fmt: skip
    ratios = {key: Series(f"--early-stop/full {key}, paired") for key, _ in keys}
    differ: set[str] = set()
    settled: list[int] = []
    pairs = []
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        with tempfile.TemporaryDirectory() as out:
            full = run_side(args.path, args.model, Path(out) / "full", early=False)
            early = run_side(args.path, args.model, Path(out) / "early", early=True)
        differ |= {t for t, v in full["verdicts"].items() if early["verdicts"].get(t) != v}
        settled.append(early["settled"])
        pairs.append({"full": full, "early_stop": early, "load": round(load, 2)})
        for key, _ in keys:
            sides["full"][key].add(full[key], load)
            sides["--early-stop"][key].add(early[key], load)
            ratios[key].add(early[key] / full[key] if full[key] else float("nan"), load)
    print(f"{args.path} with {args.model}; tasks settled early per repetition: {settled}")
    for side in sides.values():
        for one in side.values():
            print(f"  {one.line()}")
    for one in ratios.values():
        print(f"  {one.line('.2f')}")
    print("verdicts: " + ("the same for every task in every repetition" if not differ
                          else f"differ: {sorted(differ)}"))  # fmt: skip
    print(json.dumps({"model": args.model, "pairs": pairs,
                      "ratios": {key: one.as_json() for key, one in ratios.items()},
                      "verdicts_differ": sorted(differ)}))  # fmt: skip

if __name__ == "__main__":
    main()
