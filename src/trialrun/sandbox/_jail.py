"""Run a command so that nothing it starts outlives it: `command` graders, `--agent-cmd`.

Two layers, both on every call:

- **The marker sweep** (always): the command runs in a new session with a per-call token
  in its environment (TRIALRUN_SWEEP_TOKEN). When it ends or times out, every process
  carrying the token — however it detached (`setsid`, `nohup`, double fork) — gets
  SIGTERM, then SIGKILL after a short grace. A process started with a cleared
  environment (`env -i …`) is found only while it descends from the running command.
- **The bwrap jail** (when `bwrap` works here, unless TRIALRUN_JAIL=off): a new pid
  and IPC namespace that dies with the command (`--unshare-pid --die-with-parent`), no
  network unless allowed (`--unshare-net`, which also hides the host's abstract UNIX
  sockets), only the host paths a command needs, read-only (`_jail_view`: system
  folders, a few /etc files, this Python and Node), private /tmp, /run and /dev/shm, and
  the workspace the only writable path.

Without the jail the command is started through `_guard`, which takes its process group
(and every marked process) down when the caller dies, even by SIGKILL; in the jail,
`--die-with-parent` does the same.

Output goes through pipes read as it comes (`PipeCapture`), never waited on to the end:
a background child that keeps stdout open can't hang the caller, the verdict is the
command's own exit, and only the first and last bytes of each stream are kept (1 MiB
each by default), the rest drained and counted, so no output costs memory or disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from trialrun.errors import InfraError
from trialrun.sandbox._jail_view import view_flags
from trialrun.sandbox._output import PipeCapture

JAIL_ENV = "TRIALRUN_JAIL"  # "off": never use bwrap (the marker sweep still runs)
MARK_ENV = "TRIALRUN_SWEEP_TOKEN"
TERM_GRACE_S = 0.5
DEFAULT_KEEP_BYTES = 1 << 20  # of each stream, from its start and from its end
_SWEEP_ROUNDS = 10  # rescans catch children forked while the others were being killed


@dataclass(slots=True)
class CommandOutcome:
    """How a contained command ended. `exit_code` is the command's own."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    sandbox: str  # "bwrap" or "sweep"
    swept: int  # processes killed at the end: leftovers (and, on timeout, the command)
    # bytes of each stream left out between its head and tail (a line in it says so)
    stdout_dropped: int = 0
    stderr_dropped: int = 0


def jail_available() -> bool:
    """True when bwrap is installed and works here (probed once), unless TRIALRUN_JAIL=off."""
    if os.environ.get(JAIL_ENV, "").strip().lower() in ("off", "0", "false", "no"):
        return False
    return _bwrap_works()


@functools.cache
def _bwrap_works() -> bool:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, *_jail_flags("/", network=False), "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _jail_flags(
    workspace: str, *, network: bool, writable: Sequence[str] = (), readable: Sequence[str] = ()
) -> list[str]:
    flags = view_flags()
    for folder in readable:  # e.g. an agent CLI installed under a home
        flags += ["--ro-bind", folder, folder]
    for folder in writable:  # e.g. an agent's private HOME, outside the diffed workspace
        flags += ["--bind", folder, folder]
    if workspace != "/":
        flags += ["--bind", workspace, workspace, "--chdir", workspace]
    flags += ["--remount-ro", "/"]  # the jail's own root: no scratch space outside the workspace
    flags += ["--unshare-pid", "--unshare-ipc", "--die-with-parent"]
    if not network:  # also the only way to hide the host's abstract UNIX sockets
        flags.append("--unshare-net")
    return flags


def jail_argv(
    argv: Sequence[str],
    workspace: str,
    *,
    network: bool = False,
    writable: Sequence[str] = (),
    readable: Sequence[str] = (),
) -> list[str]:
    """`argv` wrapped in the bwrap jail, with `workspace` (and `writable`) its only writable
    paths; `readable` folders are shown read-only."""
    flags = _jail_flags(workspace, network=network, writable=writable, readable=readable)
    return [shutil.which("bwrap") or "bwrap", *flags, "--", *argv]


def guarded_argv(argv: Sequence[str], token: str) -> list[str]:
    """`argv` started through `_guard`: it and its process group die with this process."""
    guard = [sys.executable, "-I", "-S", str(Path(__file__).with_name("_guard.py"))]
    return [*guard, str(os.getpid()), token, "--", *argv]


def _check_program(program: str, cwd: str, path: str | None) -> None:
    """FileNotFoundError / PermissionError up front, as a direct exec would raise them
    (inside the jail, bwrap would only exit 1)."""
    if os.sep in program:
        found = os.path.join(cwd, program)
        if not os.path.exists(found):
            raise FileNotFoundError(errno.ENOENT, "no such file", program)
    else:
        which = shutil.which(program, mode=os.F_OK, path=path)
        if which is None:
            raise FileNotFoundError(errno.ENOENT, "command not found", program)
        found = which
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise PermissionError(errno.EACCES, "not executable", program)


def _marked(token: str) -> list[psutil.Process]:
    me = os.getpid()
    found = []
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        try:
            if proc.environ().get(MARK_ENV) == token:
                found.append(proc)
        except (psutil.Error, OSError):
            continue  # gone, a zombie, or another user's
    return found


def _alive(proc: psutil.Process) -> bool:
    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _signal_all(procs: list[psutil.Process], sig: int) -> None:
    for proc in procs:
        with contextlib.suppress(psutil.Error):  # psutil checks identity: no pid-reuse kills
            proc.send_signal(sig)


def sweep(token: str, leader: psutil.Process | None = None, grace_s: float = TERM_GRACE_S) -> int:
    """Kill the leader, its descendants and every process marked with `token`: SIGTERM,
    then SIGKILL after `grace_s`. Returns how many were signalled."""
    procs: dict[int, psutil.Process] = {}
    if leader is not None and _alive(leader):
        procs[leader.pid] = leader
        with contextlib.suppress(psutil.Error):
            procs.update((p.pid, p) for p in leader.children(recursive=True))
    procs.update((p.pid, p) for p in _marked(token))
    if not procs:
        return 0
    _signal_all(list(procs.values()), signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(_alive(p) for p in procs.values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    _signal_all([p for p in procs.values() if _alive(p)], signal.SIGKILL)
    killed = set(procs)
    for _ in range(_SWEEP_ROUNDS):  # children forked meanwhile
        rest = [p for p in _marked(token) if _alive(p)]
        if not rest:
            break
        killed.update(p.pid for p in rest)
        _signal_all(rest, signal.SIGKILL)
        time.sleep(0.02)
    return len(killed)



async def run_contained(
    command: str | Sequence[str],
    cwd: str,
    timeout_s: float,
    *,
    env: Mapping[str, str] | None = None,
    jail: bool | None = None,
    network: bool = False,
    tail_bytes: int | None = None,
    head_bytes: int | None = None,
    writable: Sequence[str] = (),
    readable: Sequence[str] = (),
) -> CommandOutcome:
    """Run `command` (a shell string or an argv) in `cwd`, contained (module docstring).

    `jail`: None = bwrap when available, True = bwrap or an InfraError, False = the sweep
    only. `network`: keep the network inside the jail. Of stdout and of stderr, the first
    `head_bytes` and the last `tail_bytes` are kept (1 MiB each by default; `tail_bytes`
    alone keeps only the end). Raises FileNotFoundError / PermissionError for a missing or
    non-executable argv[0]. `writable` / `readable`: more host folders the jail shows.
    """
    token = secrets.token_hex(16)
    full_env = dict(os.environ if env is None else env)
    full_env[MARK_ENV] = token
    argv = _command_argv(command, cwd, full_env)
    jailed = _jailed(jail)
    if jailed:
        argv = jail_argv(
            argv, os.path.realpath(cwd), network=network, writable=writable, readable=readable
        )
    else:
        argv = guarded_argv(argv, token)
    tail = DEFAULT_KEEP_BYTES if tail_bytes is None else tail_bytes
    head = head_bytes if head_bytes is not None else (0 if tail_bytes else DEFAULT_KEEP_BYTES)
    with PipeCapture(head, tail) as out, PipeCapture(head, tail) as err:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=out.write_fd,
            stderr=err.write_fd,
            start_new_session=True,
        )
        out.start()
        err.start()
        try:
            leader: psutil.Process | None = psutil.Process(proc.pid)
        except psutil.Error:
            leader = None  # already ended and reaped
        timed_out = False
        try:
            await asyncio.wait_for(proc.wait(), timeout_s)
        except TimeoutError:
            timed_out = True
        except BaseException:  # cancelled (Ctrl-C, the trial's timeout): kill, no grace
            sweep(token, leader, grace_s=0)
            raise
        exit_code = proc.returncode
        swept = await asyncio.to_thread(sweep, token, leader)
        if timed_out:
            await proc.wait()
            exit_code = proc.returncode
        stdout, stderr = out.finish(), err.finish()
        return CommandOutcome(
            exit_code=exit_code,
            stdout=stdout.joined(),
            stderr=stderr.joined(),
            timed_out=timed_out,
            sandbox="bwrap" if jailed else "sweep",
            swept=swept,
            stdout_dropped=stdout.dropped,
            stderr_dropped=stderr.dropped,
        )


def _jailed(jail: bool | None) -> bool:
    """Whether the command runs in bwrap: when available (None), or as asked; asked for
    and missing is an InfraError."""
    available = jail_available()
    if jail and not available:
        raise InfraError(
            "the bwrap jail was requested but bwrap is missing or does not work here "
            f"(or {JAIL_ENV}=off); install it: apt-get install bubblewrap"
        )
    return available if jail is None else jail


def _command_argv(command: str | Sequence[str], cwd: str, env: Mapping[str, str]) -> list[str]:
    """A shell string through /bin/sh; an argv's program checked first (FileNotFoundError /
    PermissionError, not a failed run)."""
    if isinstance(command, str):
        return ["/bin/sh", "-c", command]
    argv = [str(a) for a in command]
    _check_program(argv[0], cwd, env.get("PATH"))
    return argv
