"""Per agent preset: the real CLI's own wall and CPU time per trial against trialrun's
added time (proxy, workspace, jail, recording, grading).

Bare: the CLI launched directly in a temporary folder against a recording proxy (the
least that can answer it), no jail, no run folder; its own wall and CPU (rusage of the
child). Full: `trialrun run` of the same one-task suite with `--agent NAME`, a scripted
model, k trials one at a time; its wall / k, and trialrun's own CPU per trial (this
process: proxy, workspace, recording, grading) against the CLI's (from the bare runs).
Wall times on a shared machine are noisy (bare runs are taken before and after); the CPU
split is the steadier figure of trialrun's share.
Each repetition (--repeats, at least 3) is a bare run, the full trials, a bare run; the
added wall time and trialrun's CPU share are paired per repetition (the bare runs around
the full ones), and every figure is printed as min/median/max with the load.
Usage: python bench/agent_cli.py [--trials 5] [--agents gemini-cli,claude-code,codex]
                                 [--repeats 3]
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

from trialrun import run
from trialrun.agents._proxy import RecordingProxy
from trialrun.agents.preset import base_env
from trialrun.agents.presets import LaunchContext, find_binary, get_preset
from trialrun.models import create_model

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "examples" / "agents" / "create_note.json"
SCRIPTS = {"gemini-cli": "gemini", "claude-code": "claude", "codex": "codex"}
PROMPT = "Create a file note.md containing 'buy milk'."


async def bare_trial(name: str, script: Path) -> tuple[float, float]:
    """One bare run: (wall s, CPU s of the CLI's process tree)."""
    preset = get_preset(name)
    found = find_binary(preset)
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as ws:
        model = create_model(f"scripted:{script}")
        async with RecordingProxy(model, task_id="agent-create-note") as proxy:
            launch = preset.launch(LaunchContext(PROMPT, Path(home), Path(ws), proxy.root_url))
            env = base_env(Path(home)) | launch.env
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = await asyncio.create_subprocess_exec(
                found.binary, *launch.args, cwd=ws, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            await proc.wait()
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert (Path(ws) / "note.md").exists(), f"{name} did not write the file"
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def full_trials(name: str, script: Path, trials: int) -> tuple[float, float]:
    """`trialrun run --agent NAME -k trials -j 1`, per trial: (wall s, trialrun's own CPU s
    in this process), run set-up included. (The CLI's CPU inside the jail does not reach
    this process's rusage: the bare runs measure it.)"""
    with tempfile.TemporaryDirectory() as out:
        self_before = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        outcome = run(
            TASK, agent=name, models=[f"scripted:{script}"], k=trials, concurrency=1,
            out=out, handle_sigint=False,
        )  # fmt: skip
        wall = time.perf_counter() - start
        own = _cpu(resource.getrusage(resource.RUSAGE_SELF)) - _cpu(self_before)
        lines = (outcome.path / "results.jsonl").read_text().splitlines()
        assert all(json.loads(line)["solve"] for line in lines), f"{name}: a trial failed"
    return wall / trials, own / trials


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--agents", default=",".join(SCRIPTS))
    add_repeats_arg(parser)
    args = parser.parse_args()
    report: dict[str, dict[str, object]] = {}
    for name in args.agents.split(","):
        if find_binary(get_preset(name)) is None:
            print(f"{name}: not installed (trialrun agents install {name}); skipped")
            continue
        script = ROOT / "examples" / "agents" / f"{SCRIPTS[name]}-good.yaml"
        figures = {key: Series(label, unit) for key, label, unit in (
            ("agent_wall_s", "agent alone, wall", "s"),
            ("agent_cpu_s", "agent alone, CPU", "s"),
            ("trial_wall_s", "trial, wall", "s"),
            ("trialrun_added_wall_s", "trialrun adds, wall (paired)", "s"),
            ("trialrun_cpu_s", "trialrun's own CPU per trial", "s"),
            ("trialrun_cpu_share_pct", "trialrun's share of the trial's CPU (paired)", "%"),
        )}  # fmt: skip
        for _ in range(max(args.repeats, 3)):
            load = load_now()
            before = asyncio.run(bare_trial(name, script))
            trial_wall, own_cpu = full_trials(name, script, args.trials)
            after = asyncio.run(bare_trial(name, script))
            agent_wall, agent_cpu = (before[0] + after[0]) / 2, (before[1] + after[1]) / 2
            for key, value in (
                ("agent_wall_s", agent_wall), ("agent_cpu_s", agent_cpu),
                ("trial_wall_s", trial_wall), ("trialrun_added_wall_s", trial_wall - agent_wall),
                ("trialrun_cpu_s", own_cpu),
                ("trialrun_cpu_share_pct", 100 * own_cpu / (own_cpu + agent_cpu)),
            ):  # fmt: skip
                figures[key].add(value, load)
        report[name] = {key: one.as_json() for key, one in figures.items()}
        print(f"{name} ({args.trials} trials per repetition)")
        for one in figures.values():
            print(f"  {one.line()}")
    print(json.dumps({"trials": args.trials, "cores": os.cpu_count(), "presets": report}))

if __name__ == "__main__":
    sys.exit(main())
