"""Starting a worker process (`python -m trialrun.runner._proc_worker FD`, this Python,
not forked), and starting them early: a run with `processes > 1` spawns its workers
before it loads its tasks, so their interpreter start and imports (most of a worker's
start) overlap the driver's loading and planning instead of following them.

An early worker has done nothing but import until the driver sends it its setup: one
that no worker slot takes (fewer trials than workers, a one-process plan, a bad task
file, Ctrl-C) is killed and reaped, nothing of it to clean up.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

WORKER_MODULE = "trialrun.runner._proc_worker"


@dataclass(slots=True)
class Spawned:
    """A worker process just started and the driver's end of its socket pair."""

    proc: subprocess.Popen[bytes]
    sock: socket.socket

    def kill(self) -> None:
        self.sock.close()
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()


def worker_env() -> dict[str, str]:
    """This trialrun importable in the child whichever way the driver found it."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the folder that holds trialrun/
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def spawn_worker() -> Spawned:
    """Start a worker process; it imports, then waits for its setup on the socket."""
    ours, theirs = socket.socketpair()
    try:
        proc = subprocess.Popen(  # this Python, this package
            [sys.executable, "-m", WORKER_MODULE, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env=worker_env(),
            start_new_session=True,  # Ctrl-C reaches the driver only: it decides
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return Spawned(proc, ours)


class EarlyWorkers:
    """Worker processes started before the run's plan, for its worker slots to take;
    closing kills those none took (a context manager: closed whatever happens)."""

    def __init__(self, count: int = 0) -> None:
        self._waiting: deque[Spawned] = deque()
        with contextlib.suppress(OSError):  # out of processes: the slots start their own
            for _ in range(count):
                self._waiting.append(spawn_worker())

    def __len__(self) -> int:
        return len(self._waiting)

    def take(self) -> Spawned | None:
        """A started worker, or None when none is left."""
        return self._waiting.popleft() if self._waiting else None

    def keep(self, count: int) -> None:
        """Kill all but `count` of the waiting workers (the plan needs no more)."""
        while len(self._waiting) > max(0, count):
            self._waiting.pop().kill()

    def close(self) -> None:
        self.keep(0)

    def __enter__(self) -> EarlyWorkers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
