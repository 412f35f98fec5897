"""The Ray executor against the local one: the example suite, scripted model, -k K.

Starts a local Ray cluster (127.0.0.1, --cpus CPUs, no dashboard) and times its start,
or with `--address HOST:PORT` joins a cluster already started with `ray start` (its
CPUs are the concurrency; trials run wherever Ray puts them), then runs examples/tasks
with `scripted:examples/scripts/good.yaml` through the local executor and through Ray
(same k, same concurrency), and checks both give the same per-task counts. Each trial
here is a few milliseconds of work, so the figures show Ray's per-trial overhead, not a
speed-up: Ray pays off when trials are long (a model per worker) and there are more
machines than one.

    python bench/ray_executor.py -k 10 --cpus 2
    python bench/ray_executor.py -k 10 --address 127.0.0.1:6379   # a started cluster

Each repetition (--repeats, at least 3) starts (or joins) the cluster, runs the local
executor then Ray, and shuts Ray down; min/median/max of each figure with the load, and
Ray's trials/s over the local executor's paired per repetition. Prints the figures and
a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _repeat import Series, add_repeats_arg, load_now

ROOT = Path(__file__).resolve().parents[1]


def one_repetition(args: argparse.Namespace) -> tuple[dict[str, float], bool, int, int]:
    """Start or join the cluster, run both executors: (figures, same counts, CPUs, nodes)."""
    import ray

    from trialrun import run
    from trialrun.rundir import RunDir

    model = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"
    tasks = ROOT / "examples" / "tasks"
    cpus = args.cpus
    started = time.perf_counter()
    if args.address:
        ray.init(address=args.address, log_to_driver=False, configure_logging=False)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        nodes = sum(1 for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU"))
    else:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _node_ip_address="127.0.0.1")  # fmt: skip
        nodes = 1
    figures = {"start_s": time.perf_counter() - started}
    counts = {}
    with tempfile.TemporaryDirectory() as out:
        for executor in ("local", "ray"):
            t0 = time.perf_counter()
            done = run(tasks, [model], k=args.k, out=out, executor=executor,
                       concurrency=cpus, handle_sigint=False, fsync=False)  # fmt: skip
            wall = time.perf_counter() - t0
            n = done.summary.finished_trials
            figures[f"{executor}_trials"] = n
            figures[f"{executor}_wall_s"] = wall
            figures[f"{executor}_trials_per_s"] = n / wall
            summary = RunDir.open(done.path).stored_summary()
            assert summary is not None
            counts[executor] = {
                r.task_id: (r.n, r.passed, r.solved, r.infra_errors)
                for r in summary.tasks
            }
    ray.shutdown()
    return figures, counts["local"] == counts["ray"], cpus, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--address", help="a cluster started with `ray start` (HOST:PORT)")
    add_repeats_arg(parser)
    args = parser.parse_args()

    what = "connect" if args.address else "cluster start"
    series = {
        "start_s": Series(what, "s"),
        "local_wall_s": Series("local executor", "s"),
        "ray_wall_s": Series("ray executor", "s"),
        "local_trials_per_s": Series("local executor", "trials/s"),
        "ray_trials_per_s": Series("ray executor", "trials/s"),
        "ray_over_local": Series("ray/local trials per s, paired"),
    }
    same, trials, cpus, nodes = [], 0, args.cpus, 1
    for _ in range(max(args.repeats, 3)):
        load = load_now()
        figures, same_counts, cpus, nodes = one_repetition(args)
        figures["ray_over_local"] = figures["ray_trials_per_s"] / figures["local_trials_per_s"]
        for key, one in series.items():
            one.add(figures[key], load)
        same.append(same_counts)
        trials = int(figures["ray_trials"])
    print(f"{trials} trials per executor, -k {args.k}, {cpus} CPUs on {nodes} node(s) "
          "with CPUs")
    for one in series.values():
        print(f"  {one.line()}")
    print(f"same per-task counts in every repetition: {all(same)}")
    print(json.dumps({"trials": trials, "cpus": cpus, "nodes_with_cpus": nodes,
                      **{key: one.as_json() for key, one in series.items()},
                      "same_counts": all(same)}))


if __name__ == "__main__":
    main()
