"""Child processes as /proc shows them: whether one is still running, and the children
of a process whose command line names a marker (a power estimate, a viewer index)."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Running (a zombie, or a pid gone from /proc, is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


def child_pids(pid: int, marker: str) -> list[int]:
    """The children of `pid` whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if f"PPid:\t{pid}\n" in status and marker in cmdline:
            found.append(int(entry.name))
    return found
