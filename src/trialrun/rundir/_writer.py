"""Write-behind for a run's appends: the event loop hands bytes over, one thread writes.

A trial's transcript line and results line are whole, encoded lines when they are handed
over; this thread writes them in the order given, each file's pending lines in one
`os.write`, every transcript before any results line of the same batch (a results line
never names a transcript line that is not yet in its file), and fsyncs results.jsonl after
each batch when the run asks for it. A killed process loses at most the lines still
queued, a few milliseconds' worth (`GATHER_S`; those trials are re-run by `--resume`); a
line in the file is whole, or torn only at the very end, as before. The loop's cost per
line is one queue put, which seldom has to wake the thread.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time

_STOP = None
MAX_PENDING = 32 * 1024 * 1024  # bytes queued before `put` waits for the writer (backpressure)
# After a line arrives the thread waits this long for more before writing: each wake-up
# costs the event loop a futex call and a thread switch, so at hundreds of trials a second
# lines are written in batches of a few trials (at most this much later) rather than one by one
GATHER_S = 0.005


class LineWriter:
    """One daemon thread writing whole lines to already open, append-only files."""

    def __init__(self, fsync_fd: int | None = None) -> None:
        self._queue: queue.SimpleQueue[tuple[int, bytes, bool] | None] = queue.SimpleQueue()
        self._fsync_fd = fsync_fd
        self._error: OSError | None = None
        self._pending = 0  # bytes handed over, not yet written
        self._pending_lock = threading.Lock()  # two threads update it: no lost update
        self._thread = threading.Thread(target=self._work, name="trialrun-writer", daemon=True)
        self._thread.start()

    def put(self, fd: int, data: bytes, *, transcript: bool) -> None:
        """Queue one encoded line for `fd`; an earlier write's failure is raised here."""
        if self._error is not None:
            raise self._error
        while self._pending > MAX_PENDING and self._thread.is_alive():
            time.sleep(0.001)  # a disk slower than the trials: wait rather than grow
        with self._pending_lock:
            self._pending += len(data)
        self._queue.put((fd, data, transcript))

    def close(self) -> None:
        """Write everything queued, stop the thread; raise a write's failure, if any."""
        self._queue.put(_STOP)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is not _STOP:
                time.sleep(GATHER_S)
            batch = [item]
            while item is not _STOP:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                batch.append(item)
            stop = batch[-1] is _STOP
            lines = [b for b in batch if b is not _STOP]
            if lines and self._error is None:
                try:
                    self._write(lines)
                except OSError as exc:
                    self._error = exc
                except Exception as exc:  # never a silent end of the thread: the caller hears
                    self._error = OSError(f"results writer: {type(exc).__name__}: {exc}")
            with self._pending_lock:
                self._pending -= sum(len(data) for _, data, _ in lines)
            if stop:
                return

    def _write(self, lines: list[tuple[int, bytes, bool]]) -> None:
        chunks: dict[int, list[bytes]] = {}
        for is_transcript in (True, False):  # transcripts first
            for fd, data, transcript in lines:
                if transcript is is_transcript:
                    chunks.setdefault(fd, []).append(data)
        for fd, parts in chunks.items():
            view = memoryview(b"".join(parts))
            while view:
                view = view[os.write(fd, view):]
        if self._fsync_fd is not None and self._fsync_fd in chunks:
            with contextlib.suppress(OSError):  # retried at close
                os.fsync(self._fsync_fd)
