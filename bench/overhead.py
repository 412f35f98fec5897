"""Harness overhead: N two-turn agentic tasks × k trials with the scripted model.

Each trial goes through the real runner: a fresh workspace copied from a one-note
fixture, turn 1 `read_file`, turn 2 an answer with the note's contents, two graders,
a transcript file and one fsync'd results line. Wall time covers `trialrun.run` only
(task loading, trials, summary), not imports or generating the task files.

    python bench/overhead.py --n 200 -k 3              # 3 repetitions, each its own process
    python bench/overhead.py --n 200 -k 3 --repeats 5
    python bench/overhead.py --n 200 -k 3 --against a18510d   # paired with older code

Each repetition runs in a fresh process (`--once`, so its peak RSS is its own) and the
figures are printed as median (min, max; n; the 1-minute load at each) through
`bench/_repeat.py`: trials/s, ms/trial, CPU ms/trial, peak RSS. The last stdout line is
one JSON object: each figure's median/min/max/n/loads and every repetition's figures
(trials, wall_s, trials_per_s, ms_per_trial, cpu_ms_per_trial, peak_rss_mb).
`--against REV` runs this same script on the code at git revision REV too (its `src/`
extracted to a temporary folder and put first on PYTHONPATH), alternating new and old in
each repetition, and prints the ratio new/old of trials/s and of CPU per trial per pair.
The anchor: inspect_ai 0.3.285 running the same shape does 20–28
trial-runs/s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _repeat import MIN_REPEATS, Series, add_repeats_arg, load_now  # noqa: E402


def write_suite(root: Path, n: int) -> Path:
    """N task files sharing one fixture folder, and the script that solves them all."""
    (root / "fixtures" / "one-note").mkdir(parents=True)
    content = "The harness overhead benchmark note. Answer: 42."
    (root / "fixtures" / "one-note" / "note.md").write_text(content + "\n", encoding="utf-8")
    tasks_dir = root / "tasks"
    tasks_dir.mkdir()
    for i in range(n):
        (tasks_dir / f"bench-{i:04d}.json").write_text(
            json.dumps(
                {
                    "task_id": f"bench-{i:04d}",
                    "suite": "golden",
                    "description": "read the note and answer with its contents",
                    "inputs": {"prompt": "What does note.md say?"},
                    "environment": {"fixture": "one-note"},
                    "graders": [
                        {"type": "expectedTools", "tools": ["read_file"]},
                        {"type": "contains", "value": "Answer: 42"},
                    ],
                    "tracked_metrics": ["pass^k"],
                }
            ),
            encoding="utf-8",
        )
    # one fixtures folder next to the tasks folder: the loader looks in the parent too
    script = root / "script.json"
    script.write_text(
        json.dumps(
            {
                "default": [
                    {"tool_calls": [{"name": "read_file", "arguments": {"path": "note.md"}}]},
                    {"content": content},
                ]
            }
        ),
        encoding="utf-8",
    )
    return script


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="number of tasks")
    parser.add_argument("-k", type=int, default=3, help="trials per task")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--no-fsync", action="store_true", help="skip fsync per results line")
    parser.add_argument("--profile", action="store_true", help="print a cProfile top 25")
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path.cwd(),
        help="where the generated tasks and the run folder go, as a project's tasks/ and "
        "results/ would (default: the current folder; removed afterwards). Workspaces go "
        "to the system temp folder, as in any run.",
    )
    add_repeats_arg(parser)
    parser.add_argument("--once", action="store_true",
                        help="one repetition in this process (what each repetition runs)")
    parser.add_argument("--against", help="a git revision to pair every repetition with")
    args = parser.parse_args(argv)
    if args.against and not args.once:
        rest = list(argv if argv is not None else sys.argv[1:])
        i = rest.index("--against")
        return _paired(rest[:i] + rest[i + 2 :], args.against, args.repeats, args.n, args.k)
    if not args.once:
        return _repeated(argv if argv is not None else sys.argv[1:], args.repeats, args.n, args.k)
    return _once(args)


def _repeated(argv: list[str], repeats: int, n: int, k: int) -> int:
    """Run `--once` in a fresh process `repeats` times (at least three); print the series."""
    names = {"trials_per_s": ("trials/s", ""), "ms_per_trial": ("wall per trial", "ms"),
             "cpu_ms_per_trial": ("CPU per trial", "ms"), "peak_rss_mb": ("peak RSS", "MiB")}
    series = {key: Series(name, unit) for key, (name, unit) in names.items()}
    runs = []
    for _ in range(max(MIN_REPEATS, repeats)):
        load = load_now()
        done = subprocess.run([sys.executable, __file__, *argv, "--once"], check=True,
                              stdout=subprocess.PIPE, text=True, env=os.environ.copy())
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        figures["load"] = round(load, 2)
        runs.append(figures)
        for key, one in series.items():
            one.add(figures[key], load)
    print(f"{n} tasks × k={k}, scripted model, {len(runs)} repetitions "
          f"({runs[0]['trials']} trials each)")
    for one in series.values():
        print("  " + one.line(".4g"))
    print(json.dumps({**{key: one.as_json() for key, one in series.items()}, "runs": runs}))
    return 0


def _one_process(argv: list[str], src: Path | None) -> dict[str, float]:
    env = os.environ.copy()
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, __file__, *argv, "--once"], check=True,
                          stdout=subprocess.PIPE, text=True, env=env)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _paired(argv: list[str], rev: str, repeats: int, n: int, k: int) -> int:
    """New then old in each repetition; the ratio new/old per pair."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="trialrun-overhead-old-") as tmp:
        archive = subprocess.run(["git", "archive", rev, "src"], cwd=root,
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        old_src = Path(tmp) / "src"
        new_src = root / "src"
        rate = {"new": Series("trials/s, this code"), "old": Series(f"trials/s, {rev}")}
        cpu = {"new": Series("CPU per trial, this code", "ms"),
               "old": Series(f"CPU per trial, {rev}", "ms")}
        rate_ratio = Series("trials/s new/old, paired")
        cpu_ratio = Series("CPU per trial new/old, paired")
        for _ in range(max(MIN_REPEATS, repeats)):
            load = load_now()
            new = _one_process(argv, new_src)
            old = _one_process(argv, old_src)
            for side, figures in (("new", new), ("old", old)):
                rate[side].add(figures["trials_per_s"], load)
                cpu[side].add(figures["cpu_ms_per_trial"], load)
            rate_ratio.add(new["trials_per_s"] / old["trials_per_s"], load)
            cpu_ratio.add(new["cpu_ms_per_trial"] / old["cpu_ms_per_trial"], load)
    print(f"{n} tasks × k={k}, scripted model, this code against {rev}")
    every = [rate["new"], rate["old"], rate_ratio, cpu["new"], cpu["old"], cpu_ratio]
    for one in every:
        print("  " + one.line(".4g"))
    print(json.dumps({one.name: one.as_json() for one in every}))
    return 0


def _once(args: argparse.Namespace) -> int:
    # imports first, registries loaded: not timed
    import trialrun
    import trialrun.agents.loop  # noqa: F401
    import trialrun.metrics  # noqa: F401
    import trialrun.sandbox  # noqa: F401
    import trialrun.workflow  # noqa: F401 - what `trialrun.run` loads on first use
    from trialrun.graders import GRADERS
    from trialrun.models import MODEL_PROVIDERS
    from trialrun.tasks import load_tasks
    from trialrun.tools import TOOL_PACKS

    for registry in (GRADERS, MODEL_PROVIDERS, TOOL_PACKS):
        registry.names()

    with tempfile.TemporaryDirectory(prefix=".trialrun-bench-", dir=args.dir) as tmp:
        root = Path(tmp)
        script = write_suite(root, args.n)
        # loading and validating the task files is not timed (inspect_ai's tasks are
        # Python objects built before `eval()`); its cost is printed separately
        load_started = time.perf_counter()
        report = load_tasks([root / "tasks"])
        load_s = time.perf_counter() - load_started
        config = trialrun.RunConfig(
            tasks=report.tasks,
            models=[f"scripted:{script}"],
            k=args.k,
            out=root / "results",
            concurrency=args.concurrency,
            fsync=not args.no_fsync,
            handle_sigint=False,
            argv=["bench/overhead.py"],
        )
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        started = time.perf_counter()
        cpu_started = time.process_time()
        outcome = trialrun.run(config)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        if profiler is not None:
            import pstats

            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
        agg = outcome.summary.aggregate[f"scripted:{script}"]
        trials = outcome.summary.finished_trials
        if agg["mean_solve_rate"] != 1.0:
            print(f"warning: not every trial solved (rate {agg['mean_solve_rate']})")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {
        "trials": trials,
        "wall_s": round(wall, 4),
        "trials_per_s": round(trials / wall, 1),
        "ms_per_trial": round(wall * 1000 / trials, 3),
        "cpu_ms_per_trial": round(cpu * 1000 / trials, 3),
        "peak_rss_mb": round(peak, 1),
    }
    print(
        f"{args.n} tasks × k={args.k}: {trials} trials in {wall:.3f}s "
        f"(+ {load_s:.3f}s loading the task files, not timed)"
    )
    print(
        f"{figures['trials_per_s']} trials/s, {figures['ms_per_trial']} ms/trial, "
        f"peak RSS {figures['peak_rss_mb']} MiB; "
        f"CPU (user+system) {cpu * 1000 / trials:.3f} ms/trial"
    )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
