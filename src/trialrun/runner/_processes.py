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
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trialrun.errors import UserError
from trialrun.runner._executor import Executed
from trialrun.runner._frames import WorkerSetup, frame, read_frame
from trialrun.runner._interrupt import on_interrupt
from trialrun.runner._remote import WorkerJob, infra_line
from trialrun.runner._spawn import EarlyWorkers, Spawned, spawn_worker

if TYPE_CHECKING:
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._sink import TrialSink
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
            f"{value!r} is not a number of processes; give 1 to {MAX_PROCESSES}, or auto",
            place=where,
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
    sent: set[str] = field(default_factory=set)  # ids of the tasks its worker holds
    early: Spawned | None = None  # a worker started before the plan, for `_start` to set up

    def run_message(self, specs: list[TrialSpec]) -> tuple[str, list[Any], list[Any]]:
        """`("run", keys, tasks)`: the trials, and the tasks its worker has not been sent."""
        new = {}
        for spec in specs:
            task_id = spec.task.task_id
            if task_id not in self.sent and task_id not in new:
                new[task_id] = spec.task
        self.sent.update(new)
        return ("run", [spec.key for spec in specs], list(new.values()))

    def send(self, message: Any) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(frame(message))


def _driver_path() -> list[str]:
    cwd = os.getcwd()
    return [os.path.abspath(p) if p else cwd for p in sys.path]


async def _start(slot: _Slot, setup: WorkerSetup) -> None:
    """Start the slot's worker process (or set up the early one it was given) and wait
    until it has built its models and agent."""
    slot.sent.clear()  # a fresh worker holds no task yet
    spawned, slot.early = slot.early or spawn_worker(), None
    slot.proc = spawned.proc
    slot.reader, slot.writer = await asyncio.open_connection(sock=spawned.sock)
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


@dataclass(slots=True)
class WorkerProcesses:
    """The local executor on `processes` worker processes, `in_flight` trials in flight in
    all; a worker slot that cannot start is one line in `warnings`."""

    ctx: RunContext
    job: WorkerJob
    processes: int
    in_flight: int
    handle_sigint: bool = True
    warnings: list[str] = field(default_factory=list)
    early: EarlyWorkers = field(default_factory=EarlyWorkers)  # started before the plan

    async def execute(self, trials: list[TrialSpec], sink: TrialSink) -> Executed:
        """Run `trials` on the worker processes, write each trial as it comes back."""
        spread = _Spread(self, trials, sink)
        self.early.keep(len(spread.slots))
        try:
            await spread.run()
        finally:
            self.early.close()
        return Executed(spread.finished, spread.stop)

    def setups(self, trials: list[TrialSpec]) -> list[WorkerSetup]:
        """Each worker slot's setup (its share of the trials in flight)."""
        ctx, in_flight = self.ctx, self.in_flight
        processes = max(1, min(self.processes, in_flight, len(trials)))
        shares = [in_flight // processes + (i < in_flight % processes) for i in range(processes)]
        tasks = {spec.task.task_id: spec.task for spec in trials}
        packs = {name: None for task in tasks.values()
                 for name, _ in task.environment.tool_packs()}
        return [
            WorkerSetup(
                job=self.job,
                task_slugs={tid: ctx.prep[tid].task_slug for tid in tasks},
                model_slugs=dict(ctx.model_slugs),
                run_path=ctx.rundir.path,
                workspace_parent=ctx.workspace_parent or ctx.rundir.path,
                in_flight=share,
                keep_artifacts=ctx.keep_artifacts,
                sys_path=_driver_path(),
                tool_packs=list(packs),
            )
            for share in shares
        ]


class _Spread:
    """One execution over worker processes: the queue, the slots and what came back."""

    def __init__(self, executor: WorkerProcesses, trials: list[TrialSpec], sink: TrialSink):
        self.executor = executor
        self.sink = sink
        self.setup_of = executor.setups(trials)
        self.queue: deque[TrialSpec] = deque(trials)
        self.lost: dict[tuple[str, str, int], int] = {}
        self.slots = [_Slot(number=i) for i in range(len(self.setup_of))]
        self.finished = 0
        self.stop = False
        self.given_up: list[str] = []  # why each worker slot that never started was given up

    def write(self, spec: TrialSpec, line: Any, transcript: bytes | None) -> None:
        self.sink.write(spec, line, transcript)
        self.finished += 1

    def hand_out(self, slot: _Slot, n: int) -> None:
        batch: list[TrialSpec] = []
        while not self.stop and self.queue and len(batch) < n:
            spec = self.queue.popleft()
            if self.sink.skips(spec):
                continue
            slot.pending[spec.key] = spec
            batch.append(spec)
        if batch:
            slot.send(slot.run_message(batch))

    def lose(self, slot: _Slot, why: str) -> None:
        """The slot's worker died: its trials run once more, or are infra errors."""
        for key, spec in reversed(list(slot.pending.items())):
            self.lost[key] = self.lost.get(key, 0) + 1
            if self.stop:
                continue  # interrupted: not run, a resume runs it
            if self.lost[key] > RETRIES:
                self.write(spec, *infra_line(spec, self.executor.ctx, why))
            else:
                self.queue.appendleft(spec)
        slot.pending.clear()

    async def start(self, slot: _Slot) -> bool:
        """Start the slot's worker, again if it dies while starting; False: given up."""
        why = ""
        for _ in range(START_TRIES):
            slot.early = self.executor.early.take()
            try:
                await _start(slot, self.setup_of[slot.number])
                return True
            except _DiedStarting as exc:
                why = str(exc)
        why = f"{why}, {START_TRIES} times in a row; this worker slot is given up"
        self.given_up.append(why)
        self.executor.warnings.append(why)
        return False

    async def receive(self, slot: _Slot, share: int) -> None:
        """Write what the slot's worker hands back until it has nothing in flight or dies."""
        assert slot.reader is not None
        while slot.pending:
            message = await read_frame(slot.reader)
            if message is None:
                return
            if message[0] == "crash":
                raise RuntimeError(f"worker process {slot.number}:\n{message[1]}")
            if message[0] == "error":  # preparing a task failed there: as at its start
                raise UserError(message[1])
            for line, transcript in message[1]:
                self.write(slot.pending.pop(line.key), line, transcript)
            self.hand_out(slot, share - len(slot.pending))

    async def drive(self, slot: _Slot) -> None:
        share = self.setup_of[slot.number].in_flight
        while not self.stop and (self.queue or slot.pending):
            if not await self.start(slot):
                return
            self.hand_out(slot, share)
            await self.receive(slot, share)
            if not slot.pending:
                await _close(slot)
                if self.stop or not self.queue:
                    return
                continue  # another slot's lost trials came back to the queue
            code = await _exit_code(slot)
            slot.deaths += 1
            self.lose(slot, f"worker process died (exit {code}) twice while running this trial")
            if slot.deaths > RESTARTS_PER_WORKER:
                return

    def on_sigint(self) -> None:
        self.stop = True
        for slot in self.slots:
            slot.send(("stop",))

    async def run(self) -> None:
        drivers = [asyncio.ensure_future(self.drive(slot)) for slot in self.slots]
        loop = asyncio.get_running_loop()
        with on_interrupt(loop, self.on_sigint, self.executor.handle_sigint):
            try:  # a worker's crash (a bug, as in a one-process run) ends the whole run
                await asyncio.gather(*drivers)
            except BaseException:
                self.stop = True
                raise
            finally:
                for d in drivers:
                    d.cancel()
                await asyncio.gather(*drivers, return_exceptions=True)
                for slot in self.slots:  # whatever happened, no worker outlives the run
                    with contextlib.suppress(Exception):
                        await _close(slot)
        if self.queue and not self.stop:  # every worker slot died too often: the rest cannot run
            why = "no worker process left to run this trial"
            if self.given_up:
                why += f" ({self.given_up[-1].split(';')[0]})"
            while self.queue:
                spec = self.queue.popleft()
                self.write(spec, *infra_line(spec, self.executor.ctx, why))
