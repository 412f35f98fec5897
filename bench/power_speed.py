"""Power before the run: how long `plan` and the run's power line take at 100 tasks × k=100,
and how close the suite's normal approximation is to the exact stratified test.

Each timing runs in a fresh process (cold caches; the import is not timed):
- plan, every task at an assumed 90 % (as `trialrun plan -k 100 --rate 0.9`);
- plan, baseline rates 1 %…100 % (one distinct rate per task: the most work per task);
- the run's power line (`suite_power_line`, what `trialrun run -k 100` prints first).
- the issue's two cases on examples/tasks (12 tasks) at k=100: the run's power line and
  the whole `trialrun plan` command.
`--against REV` times the same in the code at git revision REV (its `src/` extracted to a
temporary folder), stopping each side after `--timeout` seconds (default 120), each
repetition of the new code paired with one of the old (their ratio per pair).
Every timing is min/median/max over --repeats repetitions (at least 3), with the load.

The accuracy grid compares the approximation (used past 600 margin vectors) with the exact
test's power: summed exactly in suites small enough, simulated (seeded, `--draws`) in
larger ones.

    python bench/power_speed.py                       # new code, timings and accuracy
    python bench/power_speed.py --against 124f49b     # and the code before, side by side
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0
TASKS, K = 100, 100

CASES = {
    "plan, 100 tasks × k=100 at 90%": (
        "from trialrun.tracking import plan\n"
        f"rows = [(f't{{i}}', {K}, 0.9, 'assumed') for i in range({TASKS})]\n"
        "CALL = lambda: plan(rows, 0.05)\n"
    ),
    "plan, 100 tasks × k=100, rates 1–100%": (
        "from trialrun.tracking import plan\n"
        f"rows = [(f't{{i}}', {K}, (i + 1) / 100, 'baseline') for i in range({TASKS})]\n"
        "CALL = lambda: plan(rows, 0.05)\n"
    ),
    "run's power line, 100 tasks × k=100": (
        "from trialrun.tracking import suite_power_line\n"
        f"CALL = lambda: suite_power_line([({K}, 0.9)] * {TASKS}, 0.05)\n"
    ),
    # the cases: `trialrun run examples/tasks -k 100` (12 tasks) before its first
    # trial, and `trialrun plan examples/tasks -k 100`
    "run's power line, examples/tasks (12 tasks) × k=100": (
        "from trialrun.tracking import suite_power_line\n"
        f"CALL = lambda: suite_power_line([({K}, 0.9)] * 12, 0.05)\n"
    ),
    "`trialrun plan examples/tasks -k 100` (the command, task loading included)": (
        "import contextlib, io, sys\nfrom trialrun.cli import main\n"
        f"sys.argv = ['trialrun', 'plan', {str(ROOT / 'examples/tasks')!r}, '-k', '{K}']\n"
        "def CALL():\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        main()\n"
    ),
}
TIMER = "import time\nstarted = time.perf_counter()\nCALL()\nprint(time.perf_counter() - started)\n"


def time_case(setup: str, src: Path, timeout: float) -> float | None:
    """Seconds for one call in a fresh process with `src` first on the path (None: timeout)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", setup + TIMER],
            env=env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        raise SystemExit(f"{src}: {proc.stderr.strip().splitlines()[-1]}")
    return float(proc.stdout.strip().splitlines()[-1])


def extract_src(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "archive", rev, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def simulated_power(rates: list[float], k: int, drop: float, draws: int) -> float:
    """The exact stratified test's power by seeded simulation (the reference past the
    exact sum's budget)."""
    from trialrun.tracking import stratified_p_value

    rng = random.Random(25)
    hits = 0
    for _ in range(draws):
        strata = []
        for rate in rates:
            c0 = sum(rng.random() < rate for _ in range(k))
            c1 = sum(rng.random() < max(rate - drop, 0.0) for _ in range(k))
            strata.append((c0, k, c1, k))
        dropped = sum(s[2] for s in strata) < sum(s[0] for s in strata)
        hits += dropped and stratified_p_value(strata) <= 0.05
    return hits / draws


def accuracy(draws: int) -> list[dict[str, object]]:
    from trialrun.tracking._suite_power import (
        _approximate_power,
        suite_power,
        suite_power_is_exact,
    )

    grid = [(2, 10, 0.9), (3, 4, 1.0), (5, 3, 0.8), (10, 5, 0.7), (20, 3, 0.9), (20, 5, 0.95)]
    rows = []
    for tasks, k, rate in grid:
        rates = [rate] * tasks
        worst = 0.0
        exact = suite_power_is_exact(rates, [k] * tasks, 0.1, "exact")
        for drop in (0.05, 0.1, 0.2, 0.3):
            if exact:
                reference = suite_power(rates, [k] * tasks, drop, 0.05)
            else:
                reference = simulated_power(rates, k, drop, draws)
            approx = _approximate_power([(rate, k)] * tasks, drop, 0.05, "exact")
            worst = max(worst, abs(approx - reference))
        reference_name = "exact sum" if exact else f"simulated, {draws} draws"
        rows.append({"tasks": tasks, "k": k, "rate": rate, "reference": reference_name,
                     "max_abs_diff": round(worst, 3)})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="a git revision to time side by side")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--no-accuracy", action="store_true")
    add_repeats_arg(parser)
    args = parser.parse_args()

    out: dict[str, object] = {"target_s": TARGET_S, "times_s": {}}
    with tempfile.TemporaryDirectory() as tmp:
        old_src = extract_src(args.against, Path(tmp)) if args.against else None
        for name, setup in CASES.items():
            new, old, ratio = Series(name, "s"), Series(f"{args.against}", "s"), Series("old/new")
            timeouts = 0
            for _ in range(max(args.repeats, 3)):
                load = load_now()
                new_s = time_case(setup, ROOT / "src", args.timeout)
                assert new_s is not None, f"{name}: over {args.timeout} s"
                new.add(new_s, load)
                if old_src is not None:
                    old_s = time_case(setup, old_src, args.timeout)
                    if old_s is None:
                        timeouts += 1
                    else:
                        old.add(old_s, load)
                        ratio.add(old_s / new_s, load)
            row: dict[str, object] = {"new": new.as_json()}
            text = f"{new.line()} ({new.median / TARGET_S:.2f}× the {TARGET_S:g} s target)"
            if old_src is not None:
                row["old"] = old.as_json() if old.values else None
                row["old_timeouts"] = timeouts
                text += f"\n  {old.line('.1f') if old.values else args.against}"
                text += f"; over {args.timeout:g} s in {timeouts}" if timeouts else ""
                text += f"\n  {ratio.line('.0f')}" if ratio.values else ""
            out["times_s"][name] = row  # type: ignore[index]
            print(text, flush=True)
    if not args.no_accuracy:
        sys.path.insert(0, str(ROOT / "src"))
        grid = accuracy(args.draws)
        for row in grid:
            print(
                f"approximation vs exact test, {row['tasks']} tasks × k={row['k']} at "
                f"{row['rate']:.0%}: max |Δpower| {row['max_abs_diff']} over drops 5–30 "
                f"points ({row['reference']})"
            )
        out["accuracy"] = grid
    print(json.dumps(out))


if __name__ == "__main__":
    main()
