"""Simulate reruns and run the merge gate's real latency and cost rules on them.

A simulated suite draws each task's latency and cost profile once; the baseline and the
rerun then draw their trials from it (identical reruns), or the rerun is slower by 30 ms in
every trial (its P95 +30 ms, twice the 15 ms limit) or costs 20 % more per trial (twice
the 10 % limit). Both sides go through `compare_views` and the merge gate's `latency` and
`cost` rules (default config: P95 +15 ms, cost +10 %, at 95 % confidence). The old rule is the
point comparison the gate made before: the pooled P95 (cost per trial) up by more than
the limit. Latency profiles:

- api: log-normal trial latencies around a task median of 0.3–2 s (σ 0.25), and 5 % of
  trials stalled by an extra exponential wait (mean 1 s): retries, queueing;
- loopback: a server answering after a fixed 0.3 s, jitter |N(0, 4 ms)|, 10 % of trials
  slower by an exponential wait (mean 80 ms);
- scripted: a scripted model, 1–3 turns of about 10 ms (log-normal σ 0.9) each.

Costs: a task's mean cost per trial $0.0005–$0.01 (log-uniform), trials log-normal σ 0.3
around it. Seeded: the tables are reproducible. The tables are drawn --repeats times (at
least 3) with seeds S, S+1, …; each cell shows the median and its range over those
repetitions (the Monte Carlo spread), and the time of each repetition with its load.

    PYTHONPATH=src python bench/gate_noise.py [--draws N] [--seed S] [--repeats R]
"""

from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from _repeat import Series, add_repeats_arg, load_now, spread

from trialrun.config import ProjectConfig
from trialrun.tracking import (
    RULES,
    CountsView,
    GateContext,
    TaskCounts,
    compare_views,
    gate_config,
)

SIZES = ((14, 3), (25, 5))  # tasks × k: the README demo's golden suite, a larger one
SHIFT_S = 0.030
COST_UP = 1.20
Trial = Callable[[random.Random], float]


def _api(rng: random.Random) -> Trial:
    median = math.exp(rng.uniform(math.log(0.3), math.log(2.0)))

    def trial(r: random.Random) -> float:
        stall = r.expovariate(1.0) if r.random() < 0.05 else 0.0
        return median * r.lognormvariate(0, 0.25) + stall

    return trial


def _loopback(rng: random.Random) -> Trial:
    def trial(r: random.Random) -> float:
        slow = r.expovariate(1 / 0.08) if r.random() < 0.10 else 0.0
        return 0.3 + abs(r.gauss(0, 0.004)) + slow

    return trial


def _scripted(rng: random.Random) -> Trial:
    turns = rng.randint(1, 3)

    def trial(r: random.Random) -> float:
        return sum(0.002 + r.lognormvariate(math.log(0.008), 0.9) for _ in range(turns))

    return trial


PROFILES: dict[str, Callable[[random.Random], Trial]] = {
    "api": _api,
    "loopback": _loopback,
    "scripted": _scripted,
}


def _side(
    rng: random.Random,
    trials: list[Trial],
    costs: list[float],
    k: int,
    shift: float = 0.0,
    scale: float = 1.0,
) -> CountsView:
    tasks = {}
    for i, (trial, cost) in enumerate(zip(trials, costs, strict=True)):
        latencies = [trial(rng) + shift for _ in range(k)]
        spent = [cost * rng.lognormvariate(0, 0.3) * scale for _ in range(k)]
        metrics = {"latencies_s": latencies, "cost_usd": sum(spent) / k, "trials": k}
        tid = f"t{i:02d}"
        tasks[tid] = TaskCounts(
            tid, "golden", None, "ALWAYS_PASSES", k, k, k, 0, 1.0, 1.0, False, metrics, k
        )
    return CountsView("sim", "sim", "sim", None, k, tasks)


LOWER = re.compile(r"bounds ([+-][\d.]+)…")


def _judge(rule: Callable[[GateContext], Any], ctx: GateContext) -> tuple[bool, float]:
    """Whether the rule failed, and the lower bound its message shows."""
    [result] = rule(ctx).rules
    found = LOWER.search(result.message)
    assert found is not None, result.message
    return result.status == "failed", float(found.group(1))


@dataclass
class Cell:
    """Shares of the draws failing (old rule, new rule), and the new rule's lower bounds."""

    latency: list[float]
    cost: list[float]
    latency_lows: list[float]  # ms
    cost_lows: list[float]  # %

    def latency_half(self, limit_ms: float) -> float:
        """The P95 shift (ms) the new rule catches half the time: a shift s moves every
        bootstrap draw, hence the lower bound, by s, so it fails when s > limit − bound."""
        return limit_ms - statistics.median(self.latency_lows)

    def cost_half(self, limit_pct: float) -> float:
        """The cost increase (%) caught half the time: a factor f scales every draw."""
        low = statistics.median(self.cost_lows)
        return ((1 + limit_pct / 100) / (1 + low / 100) - 1) * 100


def _cell(
    rng: random.Random, profile: str, size: tuple[int, int], change: str, draws: int
) -> Cell:
    """Simulated reruns of one profile and size through the merge gate's rules."""
    config = gate_config("merge", ProjectConfig())
    rules = {rule.__name__: rule for rule in RULES}
    limit_ms, limit_pct = config.max_p95_latency_increase_ms, config.max_cost_increase_pct
    assert limit_ms is not None and limit_pct is not None
    tasks, k = size
    hits = [0, 0, 0, 0]
    lows: tuple[list[float], list[float]] = ([], [])
    for _ in range(draws):
        trials = [PROFILES[profile](rng) for _ in range(tasks)]
        costs = [math.exp(rng.uniform(math.log(0.0005), math.log(0.01))) for _ in range(tasks)]
        before = _side(rng, trials, costs, k)
        shift = SHIFT_S if change == "slower" else 0.0
        scale = COST_UP if change == "costlier" else 1.0
        after = _side(rng, trials, costs, k, shift, scale)
        c = compare_views(before, after, against="baseline")
        ctx = GateContext("merge", "sim", config, covered=[], comparison=c, full=c)
        latency_failed, latency_low = _judge(rules["latency"], ctx)
        cost_failed, cost_low = _judge(rules["cost"], ctx)
        hits[0] += (c.latency_delta_ms or 0) > limit_ms
        hits[1] += latency_failed
        hits[2] += (c.cost_delta_pct or 0) > limit_pct
        hits[3] += cost_failed
        lows[0].append(latency_low)
        lows[1].append(cost_low)
    shares = [h / draws for h in hits]
    return Cell(shares[:2], shares[2:], *lows)


def _shares(old: list[float], new: list[float]) -> str:
    return f"{spread(old)} → {spread(new)}"


Figures = dict[tuple[str, str], list[float]]  # (table, row label) -> five figures


def _tables(rng: random.Random, draws: int) -> Figures:
    """One repetition: per row, false alarms old/new, caught old/new, caught half the time."""
    rows: Figures = {}
    for profile in PROFILES:
        for size in SIZES:
            label = f"{size[0]} × {size[1]}"
            null = _cell(rng, profile, size, "identical", draws)
            slower = _cell(rng, profile, size, "slower", draws)
            rows[("latency", f"{profile} | {label}")] = [
                *null.latency, *slower.latency, null.latency_half(15)]
            if profile == "api":
                costlier = _cell(rng, profile, size, "costlier", draws)
                rows[("cost", f"per trial | {label}")] = [
                    *null.cost, *costlier.cost, null.cost_half(10)]
    return rows


def _print_table(table: str, runs: list[Figures]) -> None:
    for (kind, label), _ in runs[0].items():
        if kind != table:
            continue
        columns = list(zip(*(run[(kind, label)] for run in runs), strict=True))
        unit = " ms" if table == "latency" else "%"
        half = spread(columns[4], ".0f")
        print(f"| {label} | {_shares(list(columns[0]), list(columns[1]))} | "
              f"{_shares(list(columns[2]), list(columns[3]))} | +{half}{unit} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--seed", type=int, default=25)
    add_repeats_arg(parser)
    args = parser.parse_args()
    seeds = [args.seed + i for i in range(max(args.repeats, 3))]
    wall, cpu = Series("time per repetition", "s"), Series("CPU per repetition", "s")
    runs = []
    for seed in seeds:
        load = load_now()
        start, cpu_start = time.perf_counter(), time.process_time()
        runs.append(_tables(random.Random(seed), args.draws))
        wall.add(time.perf_counter() - start, load)
        cpu.add(time.process_time() - cpu_start, load)
    print(
        f"merge gate, limits P95 +15 ms and cost +10 %, 95 % confidence; {args.draws} simulated "
        f"reruns per cell, seeds {seeds}, each cell median (min–max) over them. Share of "
        "reruns failing the rule, old → new; the shift the new rule catches half the time."
    )
    print(
        "| latency profile | tasks × k | identical rerun: false alarms | P95 +30 ms: caught "
        "| caught half the time |"
    )
    print("| --- | --- | --- | --- | --- |")
    _print_table("latency", runs)
    print()
    print(
        "| cost | tasks × k | identical rerun: false alarms | cost +20 %: caught "
        "| caught half the time |"
    )
    print("| --- | --- | --- | --- | --- |")
    _print_table("cost", runs)
    print(wall.line())
    print(cpu.line())

if __name__ == "__main__":
    main()
