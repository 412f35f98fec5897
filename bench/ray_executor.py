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

Prints the figures and a JSON object last.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--address", help="a cluster started with `ray start` (HOST:PORT)")
    args = parser.parse_args()

    import ray

    from trialrun import run
    from trialrun.rundir import RunDir

    model = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"
    tasks = ROOT / "examples" / "tasks"
    started = time.perf_counter()
    if args.address:
        ray.init(address=args.address, log_to_driver=False, configure_logging=False)
        args.cpus = int(ray.cluster_resources().get("CPU", 0))
        nodes = sum(1 for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU"))
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _node_ip_address="127.0.0.1")  # fmt: skip
        nodes = 1
    start_s = time.perf_counter() - started
    start_key = "connect_s" if args.address else "cluster_start_s"
    figures: dict[str, float] = {start_key: round(start_s, 2), "nodes_with_cpus": nodes}
    counts = {}
    with tempfile.TemporaryDirectory() as out:
        for executor in ("local", "ray"):
            t0 = time.perf_counter()
            done = run(tasks, [model], k=args.k, out=out, executor=executor,
                       concurrency=args.cpus, handle_sigint=False, fsync=False)  # fmt: skip
            wall = time.perf_counter() - t0
            n = done.summary.finished_trials
            figures[f"{executor}_trials"] = n
            figures[f"{executor}_wall_s"] = round(wall, 2)
            figures[f"{executor}_trials_per_s"] = round(n / wall, 1)
            summary = RunDir.open(done.path).stored_summary()
            assert summary is not None
            counts[executor] = {
                r.task_id: (r.n, r.passed, r.solved, r.infra_errors)
                for r in summary.tasks
            }
    ray.shutdown()
    figures["same_counts"] = counts["local"] == counts["ray"]
    what = "connected to" if args.address else "started"
    print(f"cluster {what} in {figures[start_key]} s "
          f"({args.cpus} CPUs on {nodes} node(s) with CPUs)")  # fmt: skip
    for executor in ("local", "ray"):
        print(
            f"{executor:>5}: {figures[f'{executor}_trials']} trials in "
            f"{figures[f'{executor}_wall_s']} s = {figures[f'{executor}_trials_per_s']}/s"
        )
    print(f"same per-task counts: {figures['same_counts']}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
