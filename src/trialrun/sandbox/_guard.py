"""Runs an unjailed command so that it dies with the process that started it.

`python -I -S _guard.py PARENT_PID TOKEN -- ARGV…`, started in a new session by
`run_contained`. The kernel sends this guard DEATH_SIGNAL when its parent dies, even by
SIGKILL (PR_SET_PDEATHSIG); the guard then SIGKILLs every process of its session's group
and every process marked with the sweep's TOKEN (however it detached), itself last.
Otherwise it waits for the command and ends as the command ended (same exit code, same
signal), so the caller sees the command's own status. The bwrap jail needs no guard:
`--die-with-parent` does this there. Standard library only, no site: it starts fast.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1
DEATH_SIGNAL = signal.SIGUSR2
_MARK_ENV = b"TRIALRUN_SWEEP_TOKEN"  # trialrun.sandbox._jail.MARK_ENV


def _marked(token: str) -> list[int]:
    needle = _MARK_ENV + b"=" + token.encode() + b"\0"
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        with contextlib.suppress(OSError), open(f"/proc/{name}/environ", "rb") as environ:
            if needle in environ.read() + b"\0":
                found.append(int(name))
    return found


def _kill_everything(token: str) -> None:
    for _ in range(3):  # children forked meanwhile
        for pid in _marked(token):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    os.killpg(os.getpgrp(), signal.SIGKILL)  # the command's group, this guard with it
    os._exit(137)


def _start(argv: list[str]) -> int:
    pid = os.fork()
    if pid == 0:
        # as subprocess's restore_signals: Python ignores these, a program expects defaults
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, DEATH_SIGNAL):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    return pid


def _end_as(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def main(args: list[str]) -> None:
    parent, token, argv = int(args[0]), args[1], args[3:]
    if os.getpgrp() != os.getpid():  # started outside a session of its own: never the caller's
        os.setpgid(0, 0)
    signal.signal(DEATH_SIGNAL, lambda *_: _kill_everything(token))
    with contextlib.suppress(Exception):  # not Linux: the marker sweep still runs
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, DEATH_SIGNAL)
    if os.getppid() != parent:  # the parent died before the prctl
        _kill_everything(token)
    child = _start(argv)
    _, status = os.waitpid(child, 0)
    _end_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
