"""A worker process of a run with `processes > 1`: `python -m trialrun.runner._proc_worker FD`.

It runs the trials the driver sends over the socket FD on an event loop of its own (up to
its share of the trials in flight), with the same `run_trial` as a one-process run, and
sends each finished trial back: results line and encoded transcript, batched per turn of
its loop. A task arrives with its first trial for this worker and is prepared (its tools
built) then, once: nothing per task stands between the worker's start and its first
trial. It writes nothing to the run folder itself. Ctrl-C is the driver's to handle
(the worker ignores SIGINT); `("stop",)`, the socket closing or the driver dying ends it:
trials in flight are cancelled and their workspaces removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import signal
import socket
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from trialrun.errors import UserError
from trialrun.graders import GRADERS
from trialrun.runner._frames import WorkerSetup, frame, read_frame
from trialrun.runner._plan import TrialSpec
from trialrun.runner._remote import CapturedTranscripts, WorkerKit
from trialrun.runner._trial import RunContext, prepare_task, run_trial
from trialrun.sandbox import WorkspaceImages
from trialrun.tasks import Task  # loaded up front: every worker unpickles tasks
from trialrun.tools import TOOL_PACKS, pack_factory

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the driver dies (even by SIGKILL)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _warm() -> None:
    """Load what every first trial needs, the built-in graders and tool packs (the task
    model comes with this module's imports), before reading the setup: a worker started
    early (`_spawn.EarlyWorkers`) does it while the driver still loads its tasks. The
    registries' entry points wait for their first lookup, after the driver's sys.path is
    added."""
    GRADERS.import_builtins()
    TOOL_PACKS.import_builtins()


def _context(setup: WorkerSetup, kit: WorkerKit) -> tuple[RunContext, CapturedTranscripts]:
    captured = CapturedTranscripts(setup.run_path)
    labels = list(setup.job.model_specs)
    ctx = RunContext(
        rundir=captured,  # type: ignore[arg-type]  # stands in for the RunDir on a worker
        agent=kit.agent(),
        task_agents=kit.task_agents(),
        models={label: kit.model(label) for label in labels},
        judge=kit.judge(),
        keep_artifacts=setup.keep_artifacts,
        workspace_parent=setup.workspace_parent,
        model_slugs=dict(setup.model_slugs),
        images=WorkspaceImages(),
        infra_trials=setup.job.infra_trials,
    )
    for name in setup.tool_packs:  # one the driver has and this process has not: one line
        pack_factory(name)
    for model in ctx.models.values():
        size_pool = getattr(model, "size_pool", None)
        if callable(size_pool):
            size_pool(setup.in_flight)
    return ctx, captured


class _Tasks:
    """The tasks the driver has sent this worker, each prepared on its first trial here."""

    def __init__(self, setup: WorkerSetup, ctx: RunContext) -> None:
        self.setup = setup
        self.ctx = ctx
        self.sent: dict[str, Task] = {}

    def add(self, tasks: list[Task]) -> None:
        for task in tasks:
            self.sent[task.task_id] = task

    def spec(self, task_id: str, model: str, trial: int) -> TrialSpec:
        """The trial's spec, its task prepared first if this is its first trial here."""
        task = self.sent[task_id]
        if task_id not in self.ctx.prep:
            job = self.setup.job
            k = job.k_of.get(task_id, task.k)
            slug = self.setup.task_slugs[task_id]
            self.ctx.prep[task_id] = prepare_task(task, k, slug, job.tool_settings)
        return TrialSpec(task, model, trial)


class _Worker:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.running: set[asyncio.Task[None]] = set()
        self.out: list[tuple[Any, bytes | None]] = []
        self.crashed = False

    def send(self, message: Any) -> None:
        if not self.writer.is_closing():
            self.writer.write(frame(message))

    def flush(self) -> None:
        if self.out:
            batch, self.out = self.out, []
            self.send(("done", batch))

    async def trial(self, spec: TrialSpec, ctx: RunContext, captured: CapturedTranscripts) -> None:
        try:
            line = await run_trial(spec, ctx)
        except asyncio.CancelledError:
            raise
        except BaseException:  # a bug: the driver fails the run, as a one-process run would
            self.crashed = True
            self.send(("crash", traceback.format_exc()))
            return
        if not self.out:  # one message per turn of the loop, whatever finished in it
            asyncio.get_running_loop().call_soon(self.flush)
        self.out.append((line, captured.take(line)))


async def _serve(sock: socket.socket) -> None:
    reader, writer = await asyncio.open_connection(sock=sock)
    worker = _Worker(writer)
    first = await read_frame(reader)
    if not first or first[0] != "setup":
        return
    setup: WorkerSetup = first[1]
    sys.path.extend(p for p in setup.sys_path if p not in sys.path)
    kit = WorkerKit(setup.job)
    try:
        setup.job.check_protocol()
        ctx, captured = _context(setup, kit)
    except UserError as exc:
        worker.send(("error", str(exc)))
        await writer.drain()
        return
    tasks = _Tasks(setup, ctx)
    ctx.io_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="trialrun-io")
    worker.send(("ready",))
    try:
        while not worker.crashed:
            message = await read_frame(reader)
            if message is None or message[0] != "run":
                break
            tasks.add(message[2])
            try:
                specs = [tasks.spec(*key) for key in message[1]]
            except UserError as exc:  # as it would have been at setup: the run stops
                worker.send(("error", str(exc)))
                break
            except Exception:  # a bug: the driver fails the run, as a one-process run would
                worker.send(("crash", traceback.format_exc()))
                break
            for spec in specs:
                job = asyncio.ensure_future(worker.trial(spec, ctx, captured))
                worker.running.add(job)
                job.add_done_callback(worker.running.discard)
    finally:
        for job in list(worker.running):  # stopped: what is in flight is not finished
            job.cancel()
        await asyncio.gather(*worker.running, return_exceptions=True)
        worker.flush()
        ctx.io_pool.shutdown(wait=True)  # the cancelled trials' workspaces are removed
        await kit.aclose()
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    sock = socket.socket(fileno=int(argv[1]))
    _warm()
    asyncio.run(_serve(sock))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
