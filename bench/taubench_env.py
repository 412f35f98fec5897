"""trialrun's τ-bench environments against a real checkout (not in CI: it needs one).

1. Every test task of airline and retail: its ground-truth actions replayed on a fresh
   copy of the published data with trialrun's tools must score 1 (the database hash and
   the required outputs). Prints the count per domain.
2. With the checkout's published trajectories (historical_trajectories/*.json, τ-bench's
   results files): each trial's recorded tool calls (the first call of each agent turn,
   as τ-bench's tool-calling agent runs them) replayed on trialrun's tools up to a hand-off,
   scored with the agent's replies; agreement with the recorded reward. A trajectory
   τ-bench cut off before the episode ended (no reward_info: its step limit) counts as 0,
   as τ-bench scores it.

Both are run --repeats times (at least 3): the counts must be the same each time (they are
exact), and the time of a pass is printed as min/median/max with the load at each.

Usage: python bench/taubench_env.py PATH/TO/tau-bench [--repeats 3]. The last line is one
JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from _repeat import Series, add_repeats_arg, load_now

from trialrun.benchmarks.taubench import TERMINATING_TOOL, TauDomain, load_domain, score


def ground_truth(domain: TauDomain) -> tuple[int, list[str]]:
    solved, failures = 0, []
    for task in domain.tasks:
        state = domain.fresh_state()
        for action in task.actions:
            if action.name not in ("respond", TERMINATING_TOOL):
                state.invoke(action.name, action.kwargs)
        reward = score(domain, task, state, list(task.outputs))
        if reward.reward == 1.0:
            solved += 1
        else:
            failures.append(f"task {task.task_id}: {reward.reason}")
    return solved, failures


def rescored(domain: TauDomain, trial: dict[str, Any]) -> float:
    if not (trial.get("info") or {}).get("reward_info"):
        return 0.0  # the episode never ended (τ-bench's step limit)
    state = domain.fresh_state()
    replies: list[str] = []
    for message in trial["traj"]:
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        if not calls:
            replies.append(message.get("content") or "")
            continue
        function = calls[0]["function"]
        if function["name"] == TERMINATING_TOOL:
            break
        state.invoke(function["name"], json.loads(function["arguments"]))
    task = domain.tasks[int(trial["task_id"])]
    reward: float = score(domain, task, state, replies).reward
    return reward


def one_pass(checkout: Path) -> tuple[dict[str, Any], list[str]]:
    """Both checks once: (figures, the lines to print)."""
    out: dict[str, Any] = {}
    lines: list[str] = []
    for name in ("airline", "retail"):
        domain = load_domain(checkout, name, "test")
        solved, failures = ground_truth(domain)
        lines.append(f"{name} test: ground truth scores 1 on {solved}/{len(domain.tasks)} tasks")
        lines.extend(f"  {failure}" for failure in failures)
        out[name] = {"tasks": len(domain.tasks), "ground_truth_solved": solved}
    for path in sorted((checkout / "historical_trajectories").glob("*.json")):
        found = next((d for d in ("airline", "retail") if d in path.stem), None)
        if found is None:
            continue
        domain = load_domain(checkout, found, "test")
        trials = json.loads(path.read_text(encoding="utf-8"))
        agree = [t for t in trials if rescored(domain, t) == float(t["reward"])]
        lines.append(f"{path.name}: trialrun's reward agrees with the recorded one on "
                     f"{len(agree)}/{len(trials)} trials")
        out[path.name] = {"trials": len(trials), "agree": len(agree)}
    return out, lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", type=Path)
    add_repeats_arg(parser)
    args = parser.parse_args()
    seconds = Series("one pass (both checks)", "s")
    passes = []
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        started = time.perf_counter()
        passes.append(one_pass(args.checkout))
        seconds.add(time.perf_counter() - started, load)
    out, lines = passes[0]
    if any(other != out for other, _ in passes):
        raise SystemExit("taubench_env: the counts differ between repetitions")
    print("\n".join(lines))
    print(f"{seconds.line()}; the counts were the same in every repetition")
    out["seconds"] = seconds.as_json()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
