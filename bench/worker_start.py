"""A worker process's start: from spawning it to its first trial's result.

`--processes N` starts N workers (`python -m trialrun.runner._proc_worker`, this Python,
not forked); until a worker is ready, its share of the trials in flight waits. This
script starts one worker as the driver does (`trialrun.runner._processes`: the socket
pair, the setup message for a suite of --tasks tasks, bench/overhead.py's one-note suite,
the `openai-compat` provider against bench/latency_bound.py's loopback server answering
at once), sends it one trial (of the suite's last task) and times, from the spawn:

- ready: the worker has imported trialrun, read its setup and built its models and
  agent (an older trialrun also unpickled and prepared every task by then);
- first result: the first trial's results line is back at the driver;

and the worker's CPU up to then. The split, measured without a process start in it: a
fresh process imports the worker module (wall and CPU), then runs the worker's own loop
(`_serve`) on a socket pair for the same setup and trial: setup to ready, ready to the
first trial's result (its task's preparation included when that is done on first use).
Beside it the interpreter's start (`python -c pass`) and, for reference, preparing
every task in one process (what a worker once did before it was ready). Last, what a
user sees: a whole run of the suite's files (one trial a task, 64 in flight,
`processes = 2`), from the call to its first trial written: task loading, planning and
the workers' start (which now begins before the tasks are loaded).

    python bench/worker_start.py                      # 256 tasks, 3 repetitions
    python bench/worker_start.py --tasks 1024 --repeats 5
    python bench/worker_start.py --against f6df749    # paired with older code, ratios new/old

Each repetition runs in a fresh process (`--once`); figures are printed as median (min,
max; n; the 1-minute load at each) through bench/_repeat.py, and the last stdout line is
one JSON object. `--against REV` runs the same on the code at git revision REV (its
`src/` extracted to a temporary folder, first on PYTHONPATH: the worker it spawns is
that code's too), alternating new and old in each repetition, and prints the ratio
new/old per pair. Byte-compiled files are written for both sides first, so neither
pays for compiling.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _repeat import MIN_REPEATS, Series, add_repeats_arg, load_now  # noqa: E402
from latency_bound import start_server  # noqa: E402
from overhead import write_suite  # noqa: E402

WORKER_MODULE = "trialrun.runner._proc_worker"

# figure key -> (printed name, unit)
FIGURES = {
    "first_result_s": ("spawn to first trial's result", "s"),
    "ready_s": ("spawn to ready", "s"),
    "worker_cpu_s": ("worker CPU up to its first result", "s"),
    "interpreter_s": ("split: interpreter start (python -c pass)", "s"),
    "import_s": ("split: importing the worker module (and what it loads before its setup)",
                 "s"),
    "import_cpu_s": ("split: the same, CPU", "s"),
    "setup_s": ("split: setup to ready", "s"),
    "first_trial_s": ("split: ready to the first trial's result", "s"),
    "prepare_all_s": ("reference: preparing every task in one process", "s"),
    "run_first_s": ("a run on 2 processes, tasks from files: call to first trial written", "s"),
}


def _process_cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _setup(root: Path, tasks: list[Any], model: str) -> Any:
    """One worker's setup as the driver makes it (older code: every task in it)."""
    from trialrun.runner._frames import WorkerSetup
    from trialrun.runner._remote import WorkerJob

    (root / "inflight").mkdir(exist_ok=True)
    given: dict[str, Any] = {
        "job": WorkerJob(model_specs={model: model}, k_of={t.task_id: 1 for t in tasks}),
        "task_slugs": {t.task_id: t.task_id for t in tasks},
        "model_slugs": {model: "bench"},
        "run_path": root,
        "workspace_parent": root / "inflight",
        "in_flight": 1,
        "sys_path": list(sys.path),
    }
    known = WorkerSetup.__dataclass_fields__
    if "tasks" in known:
        given["tasks"] = list(tasks)
    if "tool_packs" in known:
        given["tool_packs"] = ["vault"]
    return WorkerSetup(**given)


def _run_message(slot: Any, spec: Any) -> Any:
    """The driver's message running `spec` (older code: the task was in the setup)."""
    if hasattr(slot, "run_message"):
        return slot.run_message([spec])
    return ("run", [spec.key])


def _checked(reply: Any) -> None:
    if reply is None or reply[0] != "done":
        raise SystemExit(f"the worker answered {reply!r}, not a finished trial")
    line = reply[1][0][0]
    if not line.passed:
        raise SystemExit(f"the bench trial did not pass: {line.error}")


async def _spawned(setup: Any, spec: Any) -> dict[str, float]:
    """Spawn one worker as the driver does, run one trial on it; seconds from the spawn."""
    from trialrun.runner._frames import read_frame
    from trialrun.runner._processes import _close, _Slot, _start

    slot = _Slot(number=0)
    started = time.perf_counter()
    try:
        await _start(slot, setup)
        ready = time.perf_counter() - started
        slot.send(_run_message(slot, spec))
        assert slot.reader is not None and slot.proc is not None
        reply = await read_frame(slot.reader)
        first = time.perf_counter() - started
        cpu = _process_cpu_s(slot.proc.pid)
        _checked(reply)
    finally:
        await _close(slot)
    return {"ready_s": ready, "first_result_s": first, "worker_cpu_s": cpu}


async def _served(serve: Any, setup: bytes, run: bytes) -> dict[str, float]:
    """The worker's own loop (`serve`) in this process over a socket pair, sent the
    driver's `setup` and `run` frames as bytes (so nothing of them is unpickled here but
    by the worker): seconds from the setup to ready, and from ready to the result."""
    from trialrun.runner._frames import read_frame

    ours, theirs = socket.socketpair()
    serving = asyncio.ensure_future(serve(theirs))
    reader, writer = await asyncio.open_connection(sock=ours)
    try:
        started = time.perf_counter()
        writer.write(setup)
        if await read_frame(reader) != ("ready",):
            raise SystemExit("the worker did not get ready")
        ready = time.perf_counter()
        writer.write(run)
        _checked(await read_frame(reader))
        first = time.perf_counter()
    finally:
        writer.close()  # the worker ends when its socket closes
        await serving
    return {"setup_s": ready - started, "first_trial_s": first - ready}


def _split_once(frames: Path) -> dict[str, float]:
    """In this fresh process: import the worker module (timed first), then run its loop
    here on the frames in `frames`: the split without a process start in it."""
    started, cpu = time.perf_counter(), time.process_time()
    import trialrun.runner._proc_worker as worker

    warm = vars(worker).get("_warm")  # what it loads before its setup (older code: none)
    if warm is not None:
        warm()
    figures = {"import_s": time.perf_counter() - started,
               "import_cpu_s": time.process_time() - cpu}  # fmt: skip
    setup, run = (frames / "setup").read_bytes(), (frames / "run").read_bytes()
    return figures | asyncio.run(_served(worker._serve, setup, run))


def _once(n_tasks: int) -> dict[str, float]:
    """One repetition: the split (a fresh process of its own), one spawned worker's start,
    preparing every task here, and a whole run's first trial."""
    import trialrun
    from trialrun.runner._frames import frame
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._processes import _Slot
    from trialrun.runner._trial import prepare_task
    from trialrun.tasks import load_tasks
    from trialrun.tools import ToolSettings

    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    figures = {"interpreter_s": time.perf_counter() - started}
    server, port = start_server(0.0, 600.0)
    try:
        with tempfile.TemporaryDirectory(prefix=".trialrun-worker-start-") as tmp:
            root = Path(tmp)
            write_suite(root, n_tasks)
            tasks = load_tasks([root / "tasks"]).tasks
            model = f"openai-compat:bench@http://127.0.0.1:{port}/v1"
            started = time.perf_counter()
            for task in tasks:
                prepare_task(task, 1, task.task_id, ToolSettings())
            figures["prepare_all_s"] = time.perf_counter() - started
            setup = _setup(root, tasks, model)
            # the last task: a worker that prepares in plan order has prepared them all
            spec = TrialSpec(tasks[-1], model, 0)
            frames = root / "frames"
            frames.mkdir()
            (frames / "setup").write_bytes(frame(("setup", setup)))
            (frames / "run").write_bytes(frame(_run_message(_Slot(number=0), spec)))
            figures |= _fresh(0, None, ["--split-once", str(frames)])
            figures |= asyncio.run(_spawned(setup, spec))
            figures["run_first_s"] = _run_first(trialrun, root / "tasks", model,
                                                root / "results")  # fmt: skip
    finally:
        server.kill()
        server.wait()
    return {key: round(value, 4) for key, value in figures.items()}


def _run_first(trialrun: Any, tasks: Path, model: str, out: Path) -> float:
    """A whole run of the suite's files, one trial a task, on 2 worker processes with 64
    trials in flight: seconds from the call to its first trial written."""
    marks: dict[str, float] = {}

    def written(line: object) -> None:
        marks.setdefault("first", time.perf_counter())

    config = trialrun.RunConfig(tasks=[tasks], models=[model], k=1, out=out, concurrency=64,
                                processes=2, fsync=False, handle_sigint=False,
                                argv=["bench/worker_start.py"])  # fmt: skip
    started = time.perf_counter()
    outcome = trialrun.run(config, hooks=trialrun.RunHooks(trial=written))
    if outcome.summary.finished_trials != outcome.summary.expected_trials:
        raise SystemExit(f"the run finished {outcome.summary.finished_trials} trials "
                         f"of {outcome.summary.expected_trials}")  # fmt: skip
    return marks["first"] - started


def _fresh(n_tasks: int, src: Path | None, mode: list[str] | None = None) -> dict[str, float]:
    """`--once` (or `mode`) in a fresh process, with `src` first on PYTHONPATH (None: as
    it is); its figures."""
    env = os.environ.copy()
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, __file__, *(mode or ["--once", "--tasks", str(n_tasks)])],
        check=True, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _compiled(src: Path) -> None:
    """Byte-compile `src` (a worker started from a fresh checkout would compile every
    module on its first start, which is not what a user's second run pays)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip


def _repeated(n_tasks: int, repeats: int) -> int:
    _compiled(HERE.parent / "src")
    series = {key: Series(name, unit) for key, (name, unit) in FIGURES.items()}
    runs = []
    for _ in range(repeats):
        load = load_now()
        figures = {**_fresh(n_tasks, None), "load": round(load, 2)}
        runs.append(figures)
        for key, one in series.items():
            one.add(figures[key], load)
    print(f"one worker process, a suite of {n_tasks} tasks, openai-compat on loopback; "
          f"{repeats} repetitions, each in a fresh process")  # fmt: skip
    for one in series.values():
        print("  " + one.line(".3g"))
    print(json.dumps({"tasks": n_tasks, **{k: s.as_json() for k, s in series.items()},
                      "runs": runs}))  # fmt: skip
    return 0


def _paired(n_tasks: int, repeats: int, rev: str) -> int:
    """This code, then the code at `rev`, in each repetition; ratios new/old per pair."""
    root = HERE.parent
    with tempfile.TemporaryDirectory(prefix="trialrun-worker-start-old-") as tmp:
        archive = subprocess.run(["git", "archive", rev, "src"], cwd=root,
                                 capture_output=True, check=True).stdout  # fmt: skip
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        sides = {"new": root / "src", "old": Path(tmp) / "src"}
        for src in sides.values():
            _compiled(src)
        keys = ("first_result_s", "ready_s", "worker_cpu_s", "import_s", "import_cpu_s",
                "setup_s", "first_trial_s", "run_first_s")  # fmt: skip
        figures: dict[tuple[str, str], Series] = {}
        for _ in range(repeats):
            load = load_now()
            got = {side: _fresh(n_tasks, src) for side, src in sides.items()}
            for key in keys:
                name = FIGURES[key][0].strip()
                new, old = got["new"][key], got["old"][key]
                for side, title, value, unit in (
                    ("new", f"{name}, this code", new, "s"),
                    ("old", f"{name}, {rev}", old, "s"),
                    ("ratio", f"{name}, new/old paired", new / old if old else float("nan"), ""),
                ):
                    figures.setdefault((key, side), Series(title, unit)).add(value, load)
    print(f"one worker process, a suite of {n_tasks} tasks, openai-compat on loopback; this code "
          f"against {rev}, each side in a fresh process, {repeats} pairs")  # fmt: skip
    for one in figures.values():
        print("  " + one.line(".3g"))
    print(json.dumps({"tasks": n_tasks, "against": rev,
                      **{one.name: one.as_json() for one in figures.values()}}))  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=256,
                        help="tasks in the suite every worker is set up with (default 256: "
                             "bench/latency_bound.py's 64 in flight for 8 s)")  # fmt: skip
    parser.add_argument("--against", metavar="REV",
                        help="pair every repetition with the code at git revision REV")
    parser.add_argument("--once", action="store_true",
                        help="one repetition in this process, its JSON printed")
    parser.add_argument("--split-once", metavar="FRAMES", type=Path,
                        help="the split alone in this process, on the setup and run frames "
                             "--once wrote to FRAMES")  # fmt: skip
    add_repeats_arg(parser)
    args = parser.parse_args(argv)
    if args.tasks < 1:
        parser.error(f"--tasks {args.tasks}: give 1 or more")
    if args.split_once:
        print(json.dumps(_split_once(args.split_once)))
        return 0
    if args.once:
        print(json.dumps(_once(args.tasks)))
        return 0
    repeats = max(MIN_REPEATS, args.repeats)
    if args.against:
        return _paired(args.tasks, repeats, args.against)
    return _repeated(args.tasks, repeats)


if __name__ == "__main__":
    raise SystemExit(main())
