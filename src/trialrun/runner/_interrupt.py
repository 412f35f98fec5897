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
