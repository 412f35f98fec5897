"""The Ray executor on a real multi-node cluster: a head and two separately started
worker nodes, each a `ray start --block` subprocess in a session of its own on this
machine, with a token of the cluster's own (started once for the module).

The head has no CPUs, so every trial has to run on a worker node (and each results line
names the node that ran it). The example suite run through the CLI against the cluster's
address gets the local executor's verdicts; killing one worker node (SIGKILL to its
processes) while it runs a trial loses no trial and doubles none: what it had in flight
is re-run once on the node that is left. A driver without the cluster's token is one
line, exit 2. Every process of the cluster (and of a driver joined to it) listens on
127.0.0.1 only. Only the processes started here are ended (by process group and process
tree): never `ray stop`, which ends every Ray process on the machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from trialrun.rundir import RunDir

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples" / "tasks"
GOOD = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"
COUNTS = ("n", "passed", "solved", "undetermined", "infra_errors")
JOIN_TIMEOUT_S = 120


# A node is `ray start` with Ray's rewrite of a loopback address turned off. Ray's daemons
# listen on 127.0.0.1 only when their node's address is exactly "127.0.0.1" (and on every
# interface otherwise), but `ray start` rewrites a loopback `--node-ip-address` and the
# host of `--address` to this machine's own address
# (ray._private.services.resolve_ip_for_localhost). Ray's one switch against the rewrite,
# RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0, also makes `ray start --address` refuse to start a
# worker node ("Multi-node Ray clusters are not supported"), so the rewrite is turned off
# here, in the `ray start` process only; its daemons get the address as an argument.
RAY_START = (
    "import sys\n"
    "import ray._private.services as services\n"
    "from ray.scripts.scripts import main\n"
    "services.resolve_ip_for_localhost = lambda host: host  # keep 127.0.0.1\n"
    "sys.argv[0] = 'ray'\n"
    "main()\n"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Cluster:
    """A head and worker nodes, each `ray start --block` in a process group of its own."""

    address: str
    env: dict[str, str]
    temp_dir: Path
    head: subprocess.Popen | None = None
    workers: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def start_node(self, *args: str, name: str) -> subprocess.Popen:
        log = self.temp_dir / f"{name}.log"
        self.logs.append(log)
        cmd = [sys.executable, "-c", RAY_START, "start", "--block", "--node-ip-address",
               "127.0.0.1", "--disable-usage-stats", "--min-worker-port", "0",
               "--max-worker-port", "0", "--dashboard-agent-listen-port", str(_free_port()),
               *args]  # fmt: skip
        with open(log, "w") as out:
            return subprocess.Popen(cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)  # fmt: skip

    def add_worker(self, cpus: int) -> subprocess.Popen:
        worker = self.start_node("--address", self.address, "--num-cpus", str(cpus),
                                 name=f"worker{len(self.workers)}")  # fmt: skip
        self.workers.append(worker)
        return worker

    def _driver(self, code: str) -> list[str]:
        """argv of a short-lived driver connected to the cluster that runs `code`."""
        prelude = (  # trialrun's own join: it reaches a loopback-only cluster at 127.0.0.1
            "import json, time, ray\n"
            "from trialrun.runner._ray import connect_ray\n"
            f"connect_ray({self.address!r})\n"
        )
        return [sys.executable, "-c", prelude + code]

    def alive_nodes(self) -> list[dict]:
        """The cluster's live nodes: id, CPUs, head or not (asked by a driver of its own)."""
        code = (
            "print(json.dumps([{'id': n['NodeID'], 'cpus': n['Resources'].get('CPU', 0), "
            "'head': 'node:__internal_head__' in n['Resources']} "
            "for n in ray.nodes() if n['Alive']]))"
        )
        done = subprocess.run(self._driver(code), env=self.env, capture_output=True, text=True,
                              timeout=JOIN_TIMEOUT_S)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    def wait_for(self, workers: int) -> bool:
        """Wait (bounded) until `workers` nodes with CPUs are alive; False if a node's
        `ray start` exited first (on a loaded machine a raylet can miss Ray's 30 s)."""
        code = (
            f"end = time.monotonic() + {JOIN_TIMEOUT_S}\n"
            "def workers():\n"
            "    return sum(1 for n in ray.nodes() if n['Alive'] and n['Resources'].get('CPU'))\n"
            f"while workers() < {workers} and time.monotonic() < end:\n"
            "    time.sleep(0.5)\n"
            f"assert workers() >= {workers}, 'worker nodes did not join'\n"
        )
        waiter = subprocess.Popen(self._driver(code), env=self.env, text=True,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + JOIN_TIMEOUT_S + 60
        try:
            while waiter.poll() is None and time.monotonic() < deadline:
                if any(p is not None and p.poll() is not None for p in (self.head, *self.workers)):
                    return False
                time.sleep(0.5)
        finally:
            if waiter.poll() is None:
                waiter.kill()
            _out, err = waiter.communicate()
        if waiter.returncode != 0:
            pytest.fail(f"worker nodes did not join in {JOIN_TIMEOUT_S} s: {err[-500:]} "
                        f"{self.tail()}")  # fmt: skip
        return True

    def wait_for_head(self, port: int) -> None:
        """Wait (bounded) until the head's GCS answers on 127.0.0.1:`port`."""
        deadline = time.monotonic() + JOIN_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.head is None or self.head.poll() is not None:
                break
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                return
            time.sleep(0.5)
        pytest.fail(f"the head's GCS never answered on 127.0.0.1:{port}: {self.tail()}")

    def join(self, cpus: int) -> subprocess.Popen:
        """Start a worker node and wait until it has joined (a second try if it died)."""
        for _attempt in range(2):
            worker = self.add_worker(cpus)
            if self.wait_for(len([w for w in self.workers if w.poll() is None])):
                return worker
            if self.head is not None and self.head.poll() is not None:
                break
            self.workers.remove(worker)
            kill_node(worker)
        pytest.fail(f"a ray node exited before joining: {self.tail()}")

    def tail(self) -> str:
        return " | ".join(log.read_text()[-400:] for log in self.logs if log.exists())


def _descendants(pid: int) -> list[int]:
    """Every process below `pid` (Ray's workers run in process groups of their own)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_node(proc: subprocess.Popen) -> None:
    """SIGKILL one node as a crash would: its `ray start`, its process group and every
    process below it (its raylet's workers), nothing else."""
    below = _descendants(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in below:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def node_id(proc: subprocess.Popen) -> str:
    """The Ray node id of the node `ray start` process `proc` started (its raylet's)."""
    for pid in _descendants(proc.pid):
        with contextlib.suppress(OSError):
            for arg in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                if arg.startswith(b"--node_id="):
                    return arg.split(b"=", 1)[1].decode()
    pytest.fail(f"no raylet below process {proc.pid}")


@contextlib.contextmanager
def start_cluster(worker_cpus: list[int]):
    pytest.importorskip("ray")
    temp_dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="tr"))  # unix sockets: short paths
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "token",  # this cluster's own token, not ~/.ray's
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
    }
    cluster = Cluster(f"127.0.0.1:{port}", env, temp_dir)
    try:
        cluster.head = cluster.start_node(
            "--head", "--port", str(port), "--num-cpus", "0",
            "--include-dashboard", "false", "--temp-dir", str(temp_dir), name="head",
        )  # fmt: skip
        cluster.wait_for_head(port)
        for cpus in worker_cpus:  # one at a time: a busy GCS can miss a raylet's start
            cluster.join(cpus)
        yield cluster
    finally:
        for proc in (*cluster.workers, cluster.head):  # Ray ignores SIGTERM for long
            if proc is not None:
                kill_node(proc)
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster():
    with start_cluster([1, 1]) as started:
        yield started


def _cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "trialrun", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _finish(proc: subprocess.Popen, timeout: float = 300) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err


def _the_run(out: Path) -> RunDir:
    [path] = [p for p in out.iterdir() if not p.name.startswith(".")]
    return RunDir.open(path)


def counts(rundir: RunDir) -> dict[tuple[str, str], tuple]:
    summary = rundir.stored_summary()
    assert summary is not None
    return {(r.task_id, r.model): tuple(getattr(r, c) for c in COUNTS) for r in summary.tasks}


def test_the_example_suite_on_worker_nodes_gets_the_local_executors_verdicts(cluster, tmp_path):
    from trialrun import run as run_eval

    workers = {n["id"] for n in cluster.alive_nodes() if n["cpus"]}
    code, out, err = _finish(_cli("run", str(EXAMPLES), "-m", GOOD, "--executor", "ray",
                                  "--ray-address", cluster.address, "--out", "o", "--json",
                                  env=cluster.env, cwd=tmp_path))  # fmt: skip
    assert code == 0, err
    on_ray = _the_run(tmp_path / "o")
    here = run_eval(EXAMPLES, [GOOD], out=tmp_path / "local", handle_sigint=False, fsync=False)
    local = RunDir.open(here.path)
    assert counts(on_ray) == counts(local)
    lines = list(on_ray.iter_results())
    assert sorted(line.key for line in lines) == sorted(line.key for line in local.iter_results())
    doc = json.loads(out)  # `--json`: stdout is the document, stderr stays empty
    assert err == "" and doc["finished_trials"] == len(lines) > 0
    assert (tmp_path / doc["run_dir"]).resolve() == on_ray.path.resolve()
    # the head has no CPUs: every trial ran on a separately started worker node
    ran_on = {line.extra["ray_node"] for line in lines}
    assert ran_on <= workers, (ran_on, workers)
    for line in lines:  # the driver wrote every transcript
        assert on_ray.transcript(line).task_id == line.task_id


TASK = """\
task_id: {task_id}
suite: golden
description: the agent answers done after a while
inputs: {{prompt: go}}
environment: {{budgets: {{timeout_s: 120}}}}
graders: [{{type: contains, value: done}}]
tracked_metrics: [pass^k]
trials: {{k: 1}}
"""

# Each attempt leaves a mark naming its task and the Ray node it runs on; it sleeps so
# that trials are in flight when a node is killed, and marks its end.
SLOW_AGENT = """\
import os
import time
import uuid
from pathlib import Path

import ray

MARKS = Path({marks!r})


def agent(task, workspace, tools, model):
    node = ray.get_runtime_context().get_node_id()
    attempt = f"{{task.task_id}}.{{node}}.{{uuid.uuid4().hex[:8]}}"
    (MARKS / f"{{attempt}}.start").write_text("")
    time.sleep({delay})
    (MARKS / f"{{attempt}}.end").write_text("")
    return "done"
"""


def _attempts(marks: Path) -> list[tuple[str, str, bool]]:
    """(task id, node id, finished) of every attempt the agent started."""
    out = []
    for start in marks.glob("*.start"):
        task_id, node, _uid = start.stem.split(".")
        out.append((task_id, node, start.with_suffix(".end").exists()))
    return out


def _results_so_far(out: Path) -> int:
    """Lines the run has written so far (0 before its folder exists)."""
    runs = [p for p in out.iterdir() if not p.name.startswith(".")] if out.exists() else []
    if not runs:
        return 0
    with contextlib.suppress(Exception):  # mid-write: the next poll sees it
        return sum(1 for _ in RunDir.open(runs[0]).iter_results())
    return 0


# Each trial marks that it runs, then holds (bounded) until the test releases it.
HOLDING_AGENT = """\
import time
from pathlib import Path

MARKS = Path({marks!r})


def agent(task, workspace, tools, model):
    (MARKS / f"{{task.task_id}}.running").write_text("")
    end = time.monotonic() + 120
    while not (MARKS / "release").exists() and time.monotonic() < end:
        time.sleep(0.1)
    return "done"
"""


def _suite_with_agent(
    tmp_path: Path, tasks: list[str], agent_source: str, **fields: object
) -> tuple[Path, Path, Path]:
    """(a suite of `tasks`, the agent file made from `agent_source`, its marks folder)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for task_id in tasks:
        (suite / f"{task_id}.yaml").write_text(TASK.format(task_id=task_id))
    marks = tmp_path / "marks"
    marks.mkdir()
    agent = tmp_path / "agent.py"
    agent.write_text(agent_source.format(marks=str(marks), **fields))
    return suite, agent, marks


def test_the_cluster_and_its_driver_listen_on_loopback_only(cluster, tmp_path, ray_listeners):
    """While a run holds a trial on each worker node: the sockets of every process of the
    three nodes (GCS, raylets and object managers, agents, workers) and of the driver."""
    tasks = ["held-0", "held-1"]
    suite, agent, marks = _suite_with_agent(tmp_path, tasks, HOLDING_AGENT)
    run = _cli("run", str(suite), "--agent", f"{agent}:agent", "--executor", "ray",
               "--ray-address", cluster.address, "--out", "o", "--json",
               env=cluster.env, cwd=tmp_path)  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while len(list(marks.glob("*.running"))) < len(tasks) and run.poll() is None:
            assert time.monotonic() < deadline, "the trials never all started"
            time.sleep(0.2)
        nodes = [proc.pid for proc in (cluster.head, *cluster.workers) if proc is not None]
        listening = ray_listeners([*nodes, run.pid])
    finally:
        (marks / "release").write_text("")
    code, _out, err = _finish(run)
    assert code == 0, err
    names = {listener.name for listener in listening}
    # not vacuous: the GCS, the three raylets, a worker per node running a trial, the driver
    assert "gcs_server" in names, names
    assert len({x.pid for x in listening if x.name == "raylet"}) == 1 + len(cluster.workers)
    assert len({x.pid for x in listening if x.name == "ray::worker_trial"}) == len(tasks), names
    assert any(listener.pid == run.pid for listener in listening)
    elsewhere = [listener for listener in listening if not listener.loopback]
    assert elsewhere == [], elsewhere


def test_a_worker_node_killed_mid_run_loses_no_trial_and_doubles_none(cluster, tmp_path):
    victim = cluster.workers[0]  # the other worker node takes over its trials
    victim_id = node_id(victim)
    assert victim_id in {n["id"] for n in cluster.alive_nodes() if n["cpus"]}
    tasks = [f"slow-{i}" for i in range(6)]
    suite, agent, marks = _suite_with_agent(tmp_path, tasks, SLOW_AGENT, delay=1.5)
    out = tmp_path / "o"
    run = _cli("run", str(suite), "--agent", f"{agent}:agent", "--executor", "ray",
               "--ray-address", cluster.address, "--out", str(out), "--json",
               env=cluster.env, cwd=tmp_path)  # fmt: skip
    # kill the node once results are coming in and it has a trial in flight
    deadline = time.monotonic() + 240
    killed = False
    while not killed and run.poll() is None and time.monotonic() < deadline:
        in_flight = [a for a in _attempts(marks) if a[1] == victim_id and not a[2]]
        if in_flight and _results_so_far(out) > 0:
            kill_node(victim)
            killed = True
        time.sleep(0.2)
    code, stdout, err = _finish(run)
    assert killed, f"the node never had a trial in flight while results came in: {err[-500:]}"
    cluster.workers.remove(victim)
    assert code == 0, err
    assert err == ""

    rundir = _the_run(out)
    lines = list(rundir.iter_results())
    keys = [line.key for line in lines]
    assert len(keys) == len(set(keys)) == len(tasks)  # none lost, none doubled
    assert sorted(line.task_id for line in lines) == tasks
    assert all(line.trial == 0 and line.passed is True and line.error is None for line in lines)
    assert json.loads(stdout)["finished_trials"] == len(tasks)

    attempts = _attempts(marks)
    died = {task for task, node, finished in attempts if node == victim_id and not finished}
    assert died, "the kill hit no trial in flight"
    ran_on = {line.task_id: line.extra["ray_node"] for line in lines}
    for task in tasks:
        tries = [a for a in attempts if a[0] == task]
        if task in died:  # re-run once, on a node that was left
            assert len(tries) == 2, tries
            assert ran_on[task] != victim_id
        else:
            assert len(tries) == 1, tries
    assert len(attempts) == len(tasks) + len(died)
    assert victim.poll() is not None  # the node stayed dead: nothing it did was counted


def test_a_driver_without_the_clusters_token_is_one_line(cluster, tmp_path):
    env = {**cluster.env, "RAY_AUTH_TOKEN": "0" * 64}  # not this cluster's token
    env["RAY_gcs_server_port_wait_time_s"] = "2"  # Ray's retries: 2 s instead of 20
    code, out, err = _finish(_cli("run", str(EXAMPLES), "-m", GOOD, "--executor", "ray",
                                  "--ray-address", cluster.address, "--out", "o",
                                  env=env, cwd=tmp_path))  # fmt: skip
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err == (f"trialrun: --ray-address {cluster.address}: the cluster refused this "
                   "driver's auth token; set RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) to the "
                   "cluster's token\n")  # fmt: skip
    assert not (tmp_path / "o").exists()  # refused before anything was written
