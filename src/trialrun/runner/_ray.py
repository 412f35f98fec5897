"""The Ray executor: trials run as Ray tasks, the driver stays the run folder's only writer.

Each Ray task gets the task definition, its fixture files (a tar in Ray's object store,
put once per task: a worker need not share the driver's filesystem) and the specs of
the model, judge and agent. The worker builds the fixture folder and the workspace
itself, runs the same `run_trial` as the local executor, and hands back the results
line (naming the node that ran it, `ray_node`) and its transcript; the driver writes
both through `RunDir` as each task finishes, so resume, summaries and gates read the
folder as always. Models are created once per worker process (a `local` model loads
once per worker). A worker that dies mid-trial
has its trial re-run once by Ray; if that fails too, the trial is an infra error. Ctrl-C
cancels the outstanding Ray tasks. A local cluster (no address) listens on 127.0.0.1
only. `ray` is imported only here, only when chosen.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
import os
import socket
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from trialrun.errors import UserError
from trialrun.rundir import ResultLine
from trialrun.runner._executor import Executed
from trialrun.runner._interrupt import on_interrupt
from trialrun.runner._remote import (
    CapturedTranscripts,
    WorkerJob,
    WorkerKit,
    check_returned,
    infra_line,
)
from trialrun.runner._trial import RunContext, prepare_task, run_trial

if TYPE_CHECKING:
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._sink import TrialSink
    from trialrun.runner._trial import RunContext

T = TypeVar("T")
EXECUTORS = ("local", "ray")
RAY_EXTRA_HINT = "pip install 'trialrun[ray]'"
RETRIES = 1  # a trial whose worker died is re-run once, then it is an infra error


def check_executor(name: str) -> None:
    """Refuse an unknown executor name (one line)."""
    if name not in EXECUTORS:
        raise UserError(
            f"unknown executor; use one of: {', '.join(EXECUTORS)}", place="--executor", value=name
        )


def import_ray() -> Any:
    """The `ray` module, or a one-line UserError naming the extra to install."""
    try:
        # the optional `ray` extra, loaded for `--executor ray` only
        import ray
    except ImportError:
        raise UserError(
            f"ray is not installed; {RAY_EXTRA_HINT}", place="--executor", value="ray"
        ) from None
    return ray


def _probe(address: str) -> None:
    """A `host:port` that refuses connections is one line now, not minutes of Ray retries."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return  # "auto", "ray://…": Ray's own checks
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise UserError(
            f"--ray-address {address}: nothing answers there ({exc.strerror or exc}); give the "
            "address `ray start --head` printed, or leave it out for a local cluster"
        ) from None


def connect_ray(address: str | None) -> None:
    """Join the cluster at `address` (else `RAY_ADDRESS`, else start a new local one)
    unless this process already has. Never the cluster the last `ray start` on this
    machine recorded, which `ray.init()` would join: it may be gone, or someone else's."""
    ray = import_ray()
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        _probe(address)
    quiet = logging.getLogger("ray")  # its start-up notices would break `--json`'s stderr
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with _fd2_captured(bool(address)) as captured, _loopback_kept(_is_loopback(address)):
            try:
                ray.init(
                    address=address or "local",
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            except (ConnectionError, ValueError, RuntimeError) as exc:
                where = address or "a local cluster"
                if "InvalidAuthToken" in captured():
                    raise UserError(
                        f"--ray-address {where}: the cluster refused this driver's auth "
                        "token; set RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) to the cluster's token"
                    ) from None
                why = " ".join(str(exc).split())[:200]
                raise UserError(
                    f"--ray-address {where}: cannot connect to Ray ({why}); check the address "
                    "(ray start --head prints it) or leave it out for a local one"
                ) from None
    finally:
        quiet.setLevel(level)
    _quiet_error_listener()


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _is_loopback(address: str | None) -> bool:
    """A local cluster (no address) or a cluster named by a loopback address."""
    if not address:
        return True
    host = address.rpartition(":")[0].strip("[]")
    return host in LOOPBACK_HOSTS


@contextlib.contextmanager
def _loopback_kept(enabled: bool) -> Iterator[None]:
    """Keep 127.0.0.1 as this node's address while Ray starts or joins a cluster.

    Ray's daemons (GCS, raylet, object manager, workers, agents) listen on 127.0.0.1
    only when the node's address is exactly "127.0.0.1", and on every interface
    otherwise; but Ray's Python side rewrites a loopback address (ray.init's
    `_node_ip_address`, the host of `address`) to the machine's own address
    (`services.resolve_ip_for_localhost`) unless Ray clusters are switched off
    (`ray_constants.ENABLE_RAY_CLUSTER`, env `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`),
    in which case the node's address is the loopback one. That switch is read when
    the address is resolved, so it is off only for the duration of `ray.init`: a
    local cluster listens on 127.0.0.1 only, and a cluster given as 127.0.0.1:PORT
    is reached there (not through the machine's address, where a loopback-only
    cluster does not answer)."""
    constants: Any = None  # Ray's private constants module, when it has the switch
    if enabled:
        with contextlib.suppress(ImportError):
            # the optional `ray` extra, loaded for `--executor ray` only
            import ray._private.ray_constants as constants
    if constants is None or not hasattr(constants, "ENABLE_RAY_CLUSTER"):
        yield
        return
    saved = constants.ENABLE_RAY_CLUSTER
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved


@contextlib.contextmanager
def _fd2_captured(enabled: bool) -> Iterator[Callable[[], str]]:
    """Ray's C++ client writes its connection retries straight to file descriptor 2 (20
    lines when the cluster refuses the token): keep them out of the one-line error and
    `--json`'s empty stderr. Only when joining a cluster: a local one would start its
    daemons with this descriptor."""
    if not enabled:
        yield lambda: ""
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: (sink.seek(0), sink.read().decode(errors="replace"))[1]
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _quiet_error_listener() -> None:
    """Ray's driver prints cluster notices ("Task worker_trial failed. There are 1 retries
    remaining…") to stdout from a thread of its own, whatever `log_to_driver` says: they
    would break `--json`'s document. Route them to the `ray` logger instead; trialrun
    records the outcome itself (a re-run is invisible, a second death an infra error)."""
    try:  # Ray has no switch for this thread's output
        import ray._private.worker as ray_worker
    except ImportError:
        return
    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "__trialrun__", False):
        return

    def to_logger(data: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        if data.get("pid") == "raylet":
            for text in data.get("lines", []):
                logging.getLogger("ray").info("%s", text)
            return
        original(data, *args, **kwargs)

    to_logger.__trialrun__ = True  # type: ignore[attr-defined]  # our mark on Ray's hook
    ray_worker.print_to_stdstream = to_logger


def pack_fixtures(task: Any) -> tuple[bytes, str | None, str | None]:
    """(a tar of the task's fixture files, the fixture folder and the fixtures/ root
    inside it). Symlinks are followed: their targets travel as files."""
    fixture, root = task.fixture_path, task.fixtures_root
    buf = io.BytesIO()
    fixture_rel = root_rel = None
    with tarfile.open(fileobj=buf, mode="w", dereference=True) as tar:
        if root is not None:
            tar.add(str(root), arcname="root")
            root_rel = "root"
        if fixture is not None:
            try:
                fixture_rel = str(Path("root") / Path(fixture).relative_to(root)) if root else None
            except ValueError:
                fixture_rel = None
            if fixture_rel is None:
                tar.add(str(fixture), arcname="fixture")
                fixture_rel = "fixture"
    return buf.getvalue(), fixture_rel, root_rel


# --- the worker side (runs in a Ray worker process) ---

_WORKER: dict[str, Any] = {}  # per worker process: event loop, models, agents, fixtures


def _worker_loop() -> asyncio.AbstractEventLoop:
    loop = _WORKER.get("loop")
    if loop is None:  # one loop per worker: models' connections outlive a trial
        loop = _WORKER["loop"] = asyncio.new_event_loop()
    return loop


def _cached(key: str, make: Callable[[], T]) -> T:
    if key not in _WORKER:
        _WORKER[key] = make()
    made: T = _WORKER[key]
    return made


def _fixture_dir(task_id: str, digest: str, packed: tuple[bytes, str | None, str | None]) -> Path:
    """The task's fixture files unpacked once per worker, in a folder of the worker's own."""

    def unpack() -> Path:
        folder = Path(tempfile.mkdtemp(prefix="trialrun-ray-fixtures-"))
        with tarfile.open(fileobj=io.BytesIO(packed[0]), mode="r") as tar:
            tar.extractall(folder, filter="tar")
        return folder

    return _cached(f"fixtures:{task_id}:{digest}", unpack)


def _kit(job: WorkerJob) -> WorkerKit:
    """This worker process's models, judge and agent (one kit per job's specs)."""
    key = f"kit:{job.model_specs}:{job.judge_spec}:{job.agent}:{job.agent_cmd}"
    key += f":{job.agent_timeout_s}:{sorted(job.task_agents.items())}"
    return _cached(key, lambda: WorkerKit(job))


def worker_trial(
    job: WorkerJob, spec: TrialSpec, task_slug: str, model_slug: str, digest: str, packed: Any
) -> tuple[ResultLine, bytes | None]:
    """One trial on a worker: build what it needs (cached per worker), run it, return the
    results line and its transcript (encoded, for the driver to append)."""

    job.check_protocol()
    task = spec.task
    folder = _fixture_dir(task.task_id, digest, packed)
    _data, fixture_rel, root_rel = packed
    task.set_provenance(
        task.source,
        task.source_format,
        folder / fixture_rel if fixture_rel else None,
        folder / root_rel if root_rel else None,
    )
    kit = _kit(job)
    captured = CapturedTranscripts()
    ctx = RunContext(
        rundir=captured,  # type: ignore[arg-type]  # stands in for the RunDir on a worker
        agent=kit.agent(),
        task_agents=kit.task_agents(),
        models={spec.model: kit.model(spec.model)},
        judge=kit.judge(),
        infra_trials=job.infra_trials,
    )
    k = job.k_of.get(task.task_id, task.k)
    tools = job.tool_settings  # a worker serves runs of other configs too: in the key
    ctx.prep[task.task_id] = _cached(
        f"prep:{task.task_id}:{digest}:{k}:{tools!r}",
        lambda: prepare_task(task, k, task_slug, tools),
    )
    ctx.model_slugs[spec.model] = model_slug
    line = _worker_loop().run_until_complete(run_trial(spec, ctx))
    node = _node_id()
    if node:  # which machine ran it: a bad node shows up in the results
        line.extra["ray_node"] = node
    return line, captured.take(line)


def _node_id() -> str | None:
    """The Ray node this worker runs on (None outside a Ray worker)."""
    # the optional `ray` extra, loaded for `--executor ray` only
    import ray

    if not ray.is_initialized():
        return None
    return ray.get_runtime_context().get_node_id()


# --- the driver side ---


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"ray: {type(exc).__name__}: {text[:300]}" if text else f"ray: {type(exc).__name__}"


@dataclass(slots=True)
class RayCluster:
    """Trials as Ray tasks, `in_flight` outstanding (None: the cluster's CPUs)."""

    ctx: RunContext
    job: WorkerJob
    in_flight: int | None = None
    handle_sigint: bool = True

    async def execute(self, trials: list[TrialSpec], sink: TrialSink) -> Executed:
        """Run `trials` as Ray tasks, write each line as it comes back."""
        ray = import_ray()
        connect_ray(self.job.address)
        in_flight = self.in_flight or max(1, int(ray.cluster_resources().get("CPU", 1)))
        submitted = _Submitted(ray, self.ctx, ray.put(self.job), in_flight)
        queue = iter(trials)
        finished = 0

        def on_sigint() -> None:
            submitted.stop = True
            submitted.cancel_refs()

        with on_interrupt(asyncio.get_running_loop(), on_sigint, self.handle_sigint):
            try:
                submitted.fill(queue, sink)
                while submitted.pending and not submitted.stop:
                    for spec, line, transcript in await submitted.next_done():
                        sink.write(spec, line, transcript)
                        finished += 1
                    submitted.fill(queue, sink)
            except asyncio.CancelledError:
                submitted.stop = True
                raise
            finally:  # interrupted (or an error): nothing outstanding keeps running
                submitted.cancel_all()
        return Executed(finished, submitted.stop)


@dataclass(slots=True)
class _Submitted:
    """The Ray tasks in flight of one execution, and each task's fixtures, put once."""

    ray: Any
    ctx: RunContext
    job_ref: Any
    in_flight: int
    stop: bool = False
    pending: dict[asyncio.Future[Any], tuple[TrialSpec, Any]] = field(default_factory=dict)
    fixtures: dict[str, tuple[str, Any]] = field(default_factory=dict)
    remote: Any = None

    def submit(self, spec: TrialSpec) -> None:
        if self.remote is None:
            self.remote = self.ray.remote(max_retries=RETRIES, retry_exceptions=False)(
                worker_trial
            )
        task_id = spec.task.task_id
        if task_id not in self.fixtures:
            packed = pack_fixtures(spec.task)
            digest = hashlib.sha1(packed[0]).hexdigest()[:16]
            self.fixtures[task_id] = (digest, self.ray.put(packed))
        digest, packed_ref = self.fixtures[task_id]
        slug = self.ctx.model_slugs.get(spec.model) or spec.model
        task_slug = self.ctx.prep[task_id].task_slug
        ref = self.remote.remote(self.job_ref, spec, task_slug, slug, digest, packed_ref)
        self.pending[asyncio.wrap_future(ref.future())] = (spec, ref)

    def fill(self, queue: Iterator[TrialSpec], sink: TrialSink) -> None:
        while not self.stop and len(self.pending) < self.in_flight:
            spec = next(queue, None)
            if spec is None:
                return
            if not sink.skips(spec):
                self.submit(spec)

    async def next_done(self) -> list[tuple[TrialSpec, ResultLine, bytes | None]]:
        """The trials finished next (a finished trial is written, even after Ctrl-C)."""
        done, _ = await asyncio.wait(list(self.pending), return_when=asyncio.FIRST_COMPLETED)
        out = []
        for fut in done:
            spec, _ref = self.pending.pop(fut)
            try:
                line, transcript = fut.result()
                check_returned(line, transcript)
            except self.ray.exceptions.RayError as exc:
                if isinstance(getattr(exc, "cause", None), UserError):
                    raise UserError(f"--executor ray: {exc.cause}") from None
                if self.stop:  # cancelled by Ctrl-C: not run, a resume runs it
                    continue
                line, transcript = infra_line(spec, self.ctx, _one_line(exc))
            out.append((spec, line, transcript))
        return out

    def cancel_refs(self) -> None:
        for _fut, (_spec, ref) in self.pending.items():
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)

    def cancel_all(self) -> None:
        self.cancel_refs()
        for fut in self.pending:
            fut.cancel()
