"""A command's stdout or stderr, read through a pipe as it comes and kept within bounds.

Each stream keeps its first `head` bytes and its last `tail` bytes; what lies between is
read and dropped (counted), so a command that prints gigabytes costs neither memory nor
disk. The pipe is read on the event loop, one read per wakeup, so a fast writer can't
hold the loop. `finish()`, once the command has ended and its processes are swept, takes
what is still in the pipe and stops: it never waits for an end of file that a process
that escaped the sweep could hold back.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from types import TracebackType

READ_SIZE = 256 * 1024
FINAL_READS = 64  # reads after the command ended: what is left in the pipe, bounded


@dataclass(frozen=True, slots=True)
class Captured:
    """What was kept of one stream: its first and last bytes, and how many between were
    left out."""

    head: bytes
    tail: bytes
    dropped: int

    def joined(self) -> bytes:
        """Head and tail, with a line saying what was left out between them (a tail
        kept alone is the stream's end, as it was asked for)."""
        if not self.dropped or not self.head:
            return self.head + self.tail
        note = f"\n[… {self.dropped} bytes of output left out …]\n".encode()
        return self.head + note + self.tail


class PipeCapture:
    """`with PipeCapture(head, tail) as pipe:` hand `pipe.write_fd` to the child, then
    `pipe.start()`; `pipe.finish()` once it has ended. Leaving the block closes both ends."""

    def __init__(self, head: int, tail: int) -> None:
        self._head_limit, self._tail_limit = max(0, head), max(0, tail)
        self._read_fd, self.write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    def __enter__(self) -> PipeCapture:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._close_write()
        self._stop()

    def start(self) -> None:
        """Read on this event loop from now on (the child holds its own write end)."""
        self._close_write()
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._read_fd, self._read_once)

    def finish(self) -> Captured:
        """What is still in the pipe (a bounded number of reads), then what was kept."""
        for _ in range(FINAL_READS):
            if not self._read_once():
                break
        self._stop()
        keep = len(self._tail) - self._tail_limit
        if keep > 0:
            del self._tail[:keep]
        dropped = self._total - len(self._head) - len(self._tail)
        return Captured(bytes(self._head), bytes(self._tail), dropped)

    def _read_once(self) -> bool:
        """One read; False when there is nothing more for now (or ever)."""
        if self._read_fd < 0:
            return False
        try:
            data = os.read(self._read_fd, READ_SIZE)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self._stop()
            return False
        self._keep(data)
        return True

    def _keep(self, data: bytes) -> None:
        self._total += len(data)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            if len(self._tail) > max(2 * self._tail_limit, READ_SIZE):  # trim now and then
                del self._tail[: len(self._tail) - self._tail_limit]

    def _close_write(self) -> None:
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def _stop(self) -> None:
        if self._read_fd < 0:
            return
        if self._loop is not None:
            self._loop.remove_reader(self._read_fd)
            self._loop = None
        os.close(self._read_fd)
        self._read_fd = -1
