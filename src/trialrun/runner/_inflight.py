"""What a run keeps in its folder while it runs: a lock naming its process, and the
workspaces of the trials in flight (`<run>/.workspaces/`).

A run killed mid-trial (SIGKILL, power loss) leaves both behind. `--resume` removes them
before it starts, and refuses while the lock's process is alive; `clean_runs(folder)`
(`trialrun clean`) removes them from every run that is not running. A run is running
while the pid in its `.lock` is alive on this host (`os.kill(pid, 0)`; a zombie is
dead). Workspaces kept with `--keep-artifacts` (`<run>/workspaces/`) are results, not
leftovers: they stay.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from trialrun.core import read_regular
from trialrun.errors import UserError
from trialrun.rundir import RUN_JSON, WORKSPACES, loads_limited
from trialrun.sandbox import remove_tree

INFLIGHT = ".workspaces"
LOCK = ".lock"
MAX_LOCK_BYTES = 64 * 1024


@dataclass(slots=True, frozen=True)
class Holder:
    """The process a run folder's lock names."""

    pid: int
    host: str

    def __str__(self) -> str:
        here = self.host == socket.gethostname()
        return f"pid {self.pid}" if here else f"pid {self.pid} on host {self.host}"


def lock_holder(run_dir: Path) -> Holder | None:
    """The live process running `run_dir`, or None (no lock, or its process is gone)."""
    try:
        raw = read_regular(run_dir / LOCK, MAX_LOCK_BYTES, follow_symlinks=False)
        data = loads_limited(raw.decode("utf-8"))
        holder = Holder(int(data["pid"]), str(data["host"]))
    except (OSError, ValueError, KeyError, TypeError, UserError):
        # no lock, a torn one (a process that died while writing it), or no lock file
        # at all but a FIFO, device or link there: never waited on, never followed
        return None
    if holder.host != socket.gethostname():
        return holder  # cannot be checked from here: assume it runs
    return holder if _alive(holder.pid) else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OSError:
        return False
    try:  # a killed process its parent has not reaped yet is a zombie: dead
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2 :][:1] != "Z"
    except (OSError, ValueError):
        return True


def check_not_running(run_dir: Path) -> None:
    """UserError when another live process is running `run_dir`."""
    holder = lock_holder(run_dir)
    if holder is not None and holder.pid != os.getpid():
        raise UserError(
            f"{run_dir}: is running ({holder}); wait for it to end or stop it, then resume "
            f"(if that run is gone, delete {run_dir / LOCK})"
        )


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold `run_dir`'s lock while the block runs (UserError if a live process holds it)."""
    check_not_running(run_dir)
    path = run_dir / LOCK
    staging = run_dir / f"{LOCK}.{os.getpid()}"
    staging.write_text(
        json.dumps({"pid": os.getpid(), "host": socket.gethostname()}), encoding="utf-8"
    )
    os.replace(staging, path)
    try:
        yield
    finally:
        holder = lock_holder(run_dir)
        if holder is not None and holder.pid == os.getpid():  # still ours
            with contextlib.suppress(OSError):
                path.unlink()


@dataclass(slots=True)
class Removed:
    """Leftovers removed from one run folder: how many workspaces, how many bytes."""

    run_dir: Path
    workspaces: int = 0
    bytes: int = 0

    @property
    def folder(self) -> Path:
        return self.run_dir / INFLIGHT


def remove_leftovers(run_dir: Path, *, legacy: bool = False) -> Removed:
    """Remove the in-flight workspaces a dead run left in `run_dir`.

    `legacy` also removes where earlier versions kept them (the temp folder, named after
    the run id; `workspaces/.tmp` with --keep-artifacts): only a resume does, as a run of
    an earlier version has no lock that would tell it is still running.
    """
    folders = [run_dir / INFLIGHT]
    if legacy:
        temp = Path(tempfile.gettempdir()) / f"trialrun-{run_dir.name}"
        folders += [temp, run_dir / WORKSPACES / ".tmp"]
    removed = Removed(run_dir)
    for folder in folders:
        if folder.is_symlink() or not folder.is_dir():
            continue
        with contextlib.suppress(OSError):
            removed.workspaces += sum(1 for _ in folder.iterdir())
        removed.bytes += _size(folder)
        remove_tree(folder)
    return removed


def fresh_inflight_dir(run_dir: Path) -> Path:
    """`<run>/.workspaces/`, empty: what a killed run left (here or earlier) is removed."""
    remove_leftovers(run_dir, legacy=True)
    path = run_dir / INFLIGHT
    path.mkdir()
    return path


def _size(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


@dataclass(slots=True)
class CleanReport:
    """What `clean_runs` did: leftovers removed per run, and the runs still running."""

    removed: list[Removed] = field(default_factory=list)
    running: list[tuple[Path, Holder]] = field(default_factory=list)


def _is_run_dir(path: Path) -> bool:
    return any((path / name).exists() for name in (RUN_JSON, LOCK, INFLIGHT))


def clean_runs(folder: Path | str) -> CleanReport:
    """Remove abandoned in-flight workspaces (and stale locks) of the runs under `folder`.

    `folder` is a results folder (`--out`) or one run folder. Runs whose lock names a live
    process are left alone and listed in `running`.
    """
    folder = Path(folder)
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise UserError(f"{folder}: {what}; pass the results folder (run --out) or a run folder")
    if _is_run_dir(folder):
        runs = [folder]
    else:
        runs = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and _is_run_dir(p))
    report = CleanReport()
    for run_dir in runs:
        holder = lock_holder(run_dir)
        if holder is not None:
            report.running.append((run_dir, holder))
            continue
        removed = remove_leftovers(run_dir)
        lock = run_dir / LOCK
        if lock.exists():
            with contextlib.suppress(OSError):
                lock.unlink()
        if removed.workspaces:
            report.removed.append(removed)
    return report
