"""The local executor on more than one process: a run's trials spread over worker
processes on this machine, the driver the run folder's only writer.

One Python process runs one core's worth of trials (the GIL): against a fast server, many
trials in flight are bound by the CPU of the trial loop, not by the server. With
`processes = N`, N workers (`_proc_worker`, started with this Python, not forked: nothing
of the driver's threads or connections is inherited) each run up to their share of the
trials in flight on their own event loop; the driver hands out trials as slots free up
(in plan order, skipping tasks early stop has settled), writes each finished trial's
transcript and results line as it arrives, and runs the hooks. Resume, summaries and
gates see the same folder as a one-process run.

A worker that dies (killed, out of memory, a crash in native code) has its trials in
flight run once more by a fresh worker; a trial that loses its worker twice is an infra
error. Ctrl-C stops handing out trials and cancels those in flight; what finished is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trialrun.errors import UserError
from trialrun.runner._frames import WorkerSetup, frame, read_frame
from trialrun.runner._interrupt import on_interrupt
from trialrun.runner._remote import WorkerJob, infra_line, write_finished

if TYPE_CHECKING:
    from trialrun.runner._config import RunHooks
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._settle import Settlement
    from trialrun.runner._trial import RunContext

MAX_PROCESSES = 256
RETRIES = 1  # a trial whose worker died is run once more, then it is an infra error
RESTARTS_PER_WORKER = 3  # a worker slot that keeps dying stops being refilled
START_TRIES = 3  # a worker that dies while starting is started again, twice, then given up
STOP_WAIT_S = 10.0  # a stopped worker that has not exited by then is killed


class _DiedStarting(Exception):
    """The worker process exited before it was ready (no traceback: a line of the run)."""


def check_processes(value: object, where: str) -> int | None:
    """`--processes N|auto` / `[run] processes`: a count (None: not given)."""
    if value is None:
        return None
    if value == "auto":
        return os.cpu_count() or 1
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PROCESSES:
        raise UserError(
            f"{where}: {value!r} is not a number of processes; give 1 to {MAX_PROCESSES}, or auto"
        )
    return value


@dataclass(slots=True)
class _Slot:
    """One worker process and the trials it has in flight."""

    number: int
    proc: subprocess.Popen[bytes] | None = None
    writer: asyncio.StreamWriter | None = None
    reader: asyncio.StreamReader | None = None
    pending: dict[tuple[str, str, int], TrialSpec] = field(default_factory=dict)
    deaths: int = 0

    def send(self, message: Any) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(frame(message))


def _worker_env() -> dict[str, str]:
    """This trialrun importable in the child whichever way the driver found it."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the folder that holds trialrun/
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _driver_path() -> list[str]:
    cwd = os.getcwd()
    return [os.path.abspath(p) if p else cwd for p in sys.path]


async def _start(slot: _Slot, setup: WorkerSetup) -> None:
    """Start the slot's worker process and wait until it has built its models and tools."""
    ours, theirs = socket.socketpair()
    try:
        slot.proc = subprocess.Popen(  # this Python, this package
            [sys.executable, "-m", "trialrun.runner._proc_worker", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env=_worker_env(),
            start_new_session=True,  # Ctrl-C reaches the driver only: it decides
        )
    finally:
        theirs.close()
    slot.reader, slot.writer = await asyncio.open_connection(sock=ours)
    slot.send(("setup", setup))
    reply = await read_frame(slot.reader)
    if reply is None:
        code = await _exit_code(slot)
        slot.writer.close()
        slot.writer = slot.reader = None
        raise _DiedStarting(f"worker process {slot.number} exited while starting (exit {code})")
    if reply[0] == "error":
        raise UserError(reply[1])
    if reply[0] == "crash":
        raise RuntimeError(f"worker process {slot.number} failed while starting:\n{reply[1]}")


async def _exit_code(slot: _Slot) -> int | None:
    proc = slot.proc
    if proc is None:
        return None
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(None, proc.wait, STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        return await loop.run_in_executor(None, proc.wait)


async def _close(slot: _Slot) -> None:
    """Stop the slot's worker (it cancels what is in flight) and reap it."""
    slot.send(("stop",))
    if slot.writer is not None:
        slot.writer.close()
    await _exit_code(slot)
    slot.writer = slot.reader = None


async def execute_processes(
    specs: list[TrialSpec],
    ctx: RunContext,
    job: WorkerJob,
    processes: int,
    in_flight: int,
    hooks: RunHooks,
    handle_sigint: bool,
    settlement: Settlement,
    warnings: list[str] | None = None,
) -> tuple[int, bool]:
    """Run `specs` on `processes` worker processes, write each trial as it comes back:
    (trials run, interrupted). A worker slot that cannot start is one line in `warnings`."""
    processes = max(1, min(processes, in_flight, len(specs)))
    shares = [in_flight // processes + (i < in_flight % processes) for i in range(processes)]
    tasks = {spec.task.task_id: spec.task for spec in specs}
    setup_of = [
        WorkerSetup(
            job=job,
            tasks=list(tasks.values()),
            task_slugs={tid: ctx.prep[tid].task_slug for tid in tasks},
            model_slugs=dict(ctx.model_slugs),
            run_path=ctx.rundir.path,
            workspace_parent=ctx.workspace_parent or ctx.rundir.path,
            in_flight=share,
            keep_artifacts=ctx.keep_artifacts,
            sys_path=_driver_path(),
        )
        for share in shares
    ]
    queue: deque[TrialSpec] = deque(specs)
    lost: dict[tuple[str, str, int], int] = {}
    slots = [_Slot(number=i) for i in range(processes)]
    finished = 0
    stop = False
    loop = asyncio.get_running_loop()
    given_up: list[str] = []  # why each worker slot that never started was given up

    def hand_out(slot: _Slot, n: int) -> None:
        batch: list[tuple[str, str, int]] = []
        while not stop and queue and len(batch) < n:
            spec = queue.popleft()
            if settlement.is_settled(spec.task.task_id, spec.model):
                settlement.skipped += 1
                continue
            key = (spec.task.task_id, spec.model, spec.trial)
            slot.pending[key] = spec
            batch.append(key)
        if batch:
            slot.send(("run", batch))

    def lose(slot: _Slot, why: str) -> None:
        """The slot's worker died: its trials run once more, or are infra errors."""
        nonlocal finished
        for key, spec in reversed(list(slot.pending.items())):
            lost[key] = lost.get(key, 0) + 1
            if lost[key] > RETRIES or stop:
                if stop:
                    continue  # interrupted: not run, a resume runs it
                line, transcript = infra_line(spec, ctx, why)
                write_finished(ctx, spec, line, transcript, settlement, hooks)
                finished += 1
            else:
                queue.appendleft(spec)
        slot.pending.clear()

    async def start(slot: _Slot) -> bool:
        """Start the slot's worker, again if it dies while starting; False: given up."""
        for _ in range(START_TRIES):
            try:
                await _start(slot, setup_of[slot.number])
                return True
            except _DiedStarting as exc:
                why = str(exc)
        why = f"{why}, {START_TRIES} times in a row; this worker slot is given up"
        given_up.append(why)
        if warnings is not None:
            warnings.append(why)
        return False

    async def drive(slot: _Slot) -> None:
        nonlocal finished
        share = setup_of[slot.number].in_flight
        while not stop and (queue or slot.pending):
            if not await start(slot):
                return
            hand_out(slot, share)
            assert slot.reader is not None
            while slot.pending:
                message = await read_frame(slot.reader)
                if message is None:
                    break
                if message[0] == "crash":
                    raise RuntimeError(f"worker process {slot.number}:\n{message[1]}")
                for line, transcript in message[1]:
                    spec = slot.pending.pop(line.key)
                    write_finished(ctx, spec, line, transcript, settlement, hooks)
                    finished += 1
                hand_out(slot, share - len(slot.pending))
            if not slot.pending:
                await _close(slot)
                if stop or not queue:
                    return
                continue  # another slot's lost trials came back to the queue
            code = await _exit_code(slot)
            slot.deaths += 1
            lose(slot, f"worker process died (exit {code}) twice while running this trial")
            if slot.deaths > RESTARTS_PER_WORKER:
                return

    def on_sigint() -> None:
        nonlocal stop
        stop = True
        for slot in slots:
            slot.send(("stop",))

    drivers = [asyncio.ensure_future(drive(slot)) for slot in slots]
    with on_interrupt(loop, on_sigint, handle_sigint):
        try:  # a worker's crash (a bug, as in a one-process run) ends the whole run
            await asyncio.gather(*drivers)
        except BaseException:
            stop = True
            raise
        finally:
            for d in drivers:
                d.cancel()
            await asyncio.gather(*drivers, return_exceptions=True)
            for slot in slots:  # whatever happened, no worker outlives the run
                with contextlib.suppress(Exception):
                    await _close(slot)
    if queue and not stop:  # every worker slot died too often: the rest cannot run
        why = "no worker process left to run this trial"
        if given_up:
            why += f" ({given_up[-1].split(';')[0]})"
        while queue:
            spec = queue.popleft()
            line, transcript = infra_line(spec, ctx, why)
            write_finished(ctx, spec, line, transcript, settlement, hooks)
            finished += 1
    return finished, stop
