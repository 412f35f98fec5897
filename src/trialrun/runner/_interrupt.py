"""Ctrl-C during a run: a callback on the event loop instead of a KeyboardInterrupt."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def on_interrupt(
    loop: asyncio.AbstractEventLoop, callback: Callable[[], None], enabled: bool
) -> Iterator[None]:
    """While inside, SIGINT calls `callback` on `loop` (where the loop supports signal
    handlers: the main thread on Unix); otherwise Ctrl-C behaves as usual."""
    installed = False
    if enabled:
        try:
            loop.add_signal_handler(signal.SIGINT, callback)
            installed = True
        except (NotImplementedError, RuntimeError, ValueError):
            installed = False
    try:
        yield
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)


@contextlib.contextmanager
def ctrl_c_raises() -> Iterator[None]:
    """While inside, Ctrl-C raises KeyboardInterrupt at once, as it does outside asyncio.
    For the synchronous steps after a run (JUnit, Markdown, the history record, compare,
    gate) that run on the event loop's thread: `asyncio.run`'s own handler only cancels
    the main task, which never waits again, so the press was lost and the command ended
    0 once every step had run. Off the main thread, or where SIGINT is ignored (a
    background job), nothing changes."""
    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous in (signal.SIG_IGN, None):
            raise ValueError("SIGINT is ignored here")
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread, or ignored
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
