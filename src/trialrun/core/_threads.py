"""Synchronous code (tool bodies, sync agents) runs off the event loop on daemon threads.

Not `asyncio.to_thread`: code that never returns would hold a default-executor thread
that `asyncio.run` and interpreter exit wait for, so one hung tool or agent would still hang
the run at the end. A daemon thread that runs past its time limit is abandoned (its result
dropped) and the next call gets a fresh thread.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class _DaemonPool:
    """Idle workers are reused; a job with no idle worker starts a new one.

    The idle workers are counted by tokens in a deque (its append and pop are atomic
    C calls): a `threading.Semaphore` is Python code under a Condition, run on every
    submit and by every worker after every job."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle: collections.deque[None] = collections.deque()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)
        try:
            self._idle.pop()  # an idle worker will take the job
        except IndexError:
            threading.Thread(target=self._work, name="trialrun-sync", daemon=True).start()

    def _work(self) -> None:
        while True:
            self._jobs.get()()
            self._idle.append(None)


_POOL = _DaemonPool()


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():  # the caller gave up (time limit, cancellation)
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


async def run_sync(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on a daemon thread; cancelling the await abandons the thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def job() -> None:
        value: Any
        try:
            ok, value = True, fn(*args, **kwargs)
        except Exception as exc:
            ok, value = False, exc
        except BaseException as exc:  # SystemExit in tool code must not end the run
            ok, value = False, RuntimeError(f"raised {type(exc).__name__}: {exc}")
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            loop.call_soon_threadsafe(_settle, future, ok, value)

    _POOL.submit(job)
    return await future
