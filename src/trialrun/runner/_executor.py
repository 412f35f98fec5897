"""One interface for where trials run: `Executor.execute(trials, sink)` → `Executed`.

Three of them: `LocalLoop` (this process's event loop), `WorkerProcesses`
(`_processes`: worker processes on this machine) and `RayCluster` (`_ray`). Each runs the
planned trials in order, asks the sink before each whether early stop settled its task,
hands each finished trial to the sink, and on Ctrl-C stops scheduling, cancels what is in
flight and returns `interrupted`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from trialrun.runner._interrupt import on_interrupt
from trialrun.runner._trial import run_trial

if TYPE_CHECKING:
    from trialrun.runner._plan import TrialSpec
    from trialrun.runner._sink import TrialSink
    from trialrun.runner._trial import RunContext


@dataclass(frozen=True, slots=True)
class Executed:
    """What an executor did: trials run (and written), and whether Ctrl-C stopped it."""

    finished: int
    interrupted: bool


class Executor(Protocol):
    async def execute(self, trials: list[TrialSpec], sink: TrialSink) -> Executed: ...


@dataclass(slots=True)
class LocalLoop:
    """Trials on this process's event loop, `in_flight` at a time."""

    ctx: RunContext
    in_flight: int
    handle_sigint: bool = True

    async def execute(self, trials: list[TrialSpec], sink: TrialSink) -> Executed:
        queue = iter(trials)
        finished = 0
        stop = False

        async def worker() -> None:
            nonlocal finished
            for spec in queue:
                if stop:
                    return
                if sink.skips(spec):
                    continue
                line = await run_trial(spec, self.ctx)  # its transcript is written already
                sink.write(spec, line, None)
                finished += 1
                # a trial that never waits (a scripted model, a workspace made on the loop)
                # would run the whole queue in one step: the loop would read a Ctrl-C only
                # after the last trial, once its handler is gone, and the press be lost
                await asyncio.sleep(0)

        workers = 1 if self.in_flight == 1 or len(trials) <= 1 else min(self.in_flight, len(trials))
        tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]

        def on_sigint() -> None:
            nonlocal stop
            stop = True
            for t in tasks:
                t.cancel()

        with on_interrupt(asyncio.get_running_loop(), on_sigint, self.handle_sigint):
            results = await asyncio.gather(*tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                raise r
        return Executed(finished, stop)
