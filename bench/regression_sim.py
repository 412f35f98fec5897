"""Simulate suites and run the real `compare` code on them: false alarms and power.

20 tasks, k = 3/5/10 trials per task on each side, base solve rates 0.5–1.0. Scenarios:
null (no change), uniform drop (every task loses `DROP` points; for base 0.95 that is the
95 % → 80 % slide of issue 14) and single-task drop (one task falls to half its rate).
For each, the share of draws where the per-task test flags any task, and where the suite
test flags, with the exact and the mid-p method. Seeded: the table is reproducible. The
whole table is drawn --repeats times (at least 3), with seeds S, S+1, …; each cell shows
the median share and its range over those repetitions (the Monte Carlo spread), and the
load at each repetition is printed.

    PYTHONPATH=src python bench/regression_sim.py [--draws N] [--seed S] [--repeats R]
"""

from __future__ import annotations

import argparse
import random

from _repeat import add_repeats_arg, load_now, spread

from trialrun.tracking import CountsView, TaskCounts, compare_views

TASKS = 20
KS = (3, 5, 10)
RATES = (0.5, 0.7, 0.9, 0.95, 1.0)
DROP = 0.15
ALPHA = 0.05


def _side(label: str, solved: list[int], k: int) -> CountsView:
    tasks = {
        f"t{i:02d}": TaskCounts(
            f"t{i:02d}", "golden", None, "ALWAYS_PASSES", k, k, s, 0, None, None, False, {}, k
        )
        for i, s in enumerate(solved)
    }
    return CountsView(label, "sim", "sim", label, k, tasks)


def _draw(rng: random.Random, rates: list[float], k: int) -> list[int]:
    return [sum(rng.random() < p for _ in range(k)) for p in rates]


def _cell(rng: random.Random, k: int, base: float, scenario: str, draws: int) -> list[float]:
    after_rates = [base] * TASKS
    if scenario == "uniform":
        after_rates = [max(base - DROP, 0.0)] * TASKS
    elif scenario == "single":
        after_rates[0] = base / 2
    hits = [0, 0, 0]  # per-task (any task), suite exact, suite mid-p
    for _ in range(draws):
        before = _side("before", _draw(rng, [base] * TASKS, k), k)
        after = _side("after", _draw(rng, after_rates, k), k)
        exact = compare_views(before, after, against="before", alpha=ALPHA, method="exact")
        mid = compare_views(before, after, against="before", alpha=ALPHA, method="mid-p")
        hits[0] += bool(exact.regressions)
        hits[1] += exact.suite_tests[0].verdict == "regression"
        hits[2] += mid.suite_tests[0].verdict == "regression"
    return [h / draws for h in hits]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--seed", type=int, default=14)
    add_repeats_arg(parser)
    args = parser.parse_args()
    seeds = [args.seed + i for i in range(max(args.repeats, 3))]
    cells: dict[tuple[int, float, str], list[list[float]]] = {}
    loads = []
    for seed in seeds:
        loads.append(load_now())
        rng = random.Random(seed)
        for k in KS:
            for base in RATES:
                for scenario in ("null", "uniform", "single"):
                    row = cells.setdefault((k, base, scenario), [[], [], []])
                    for column, share in zip(row, _cell(rng, k, base, scenario, args.draws),
                                             strict=True):
                        column.append(share)
    print(
        f"{TASKS} tasks, alpha = {ALPHA}, {args.draws} draws per cell, seeds {seeds} "
        f"(load {min(loads):.1f}–{max(loads):.1f}); solve, one-sided; uniform drop = "
        f"{DROP:.2f}, single = one task to half its rate; each cell median (min–max)"
    )
    print("| k | base | scenario | per-task (any) | suite exact | suite mid-p |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (k, base, scenario), row in cells.items():
        figures = " | ".join(spread(column) for column in row)
        print(f"| {k} | {base:.2f} | {scenario} | {figures} |")

if __name__ == "__main__":
    main()
