"""Running an agent's code or shell command in the bwrap jail, within limits.

The command runs through `run_contained` (no network, the workspace the only writable
host path, a private /tmp, its own pid namespace; the marker sweep ends every process it
started), behind a small Python prelude that sets its resource limits before the exec:
RLIMIT_AS (memory), RLIMIT_FSIZE (largest file), RLIMIT_NPROC (processes: the user's
count now plus a margin, which bounds a fork bomb), RLIMIT_CORE 0. Of stdout and stderr
only the first and last bytes are kept. A timeout or memory exhaustion is a `ToolError`
the agent sees; so is a missing jail, unless the project opts in to unjailed runs with
`[tools] unjailed = true` in trialrun.toml (then the limits and the sweep still apply;
the packs get it in the run's `ToolSettings`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from trialrun.errors import ToolError
from trialrun.sandbox import CommandOutcome, jail_available, run_contained

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MEMORY_MB = 1024
MAX_FILE_MB = 256
EXTRA_PROCESSES = 256
KEEP_BYTES = 8 * 1024  # of each stream, from its start and from its end
START_MARGIN_S = 15.0  # the tool's own limit: the run's, plus time to start and sweep
_MEMORY_SIGNS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")

# argv[1:5] = memory bytes, file bytes, processes, then "--" and the command's argv
_PRELUDE = """\
import os, resource, sys
mem, fsize, nproc = (int(a) for a in sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
os.execvp(sys.argv[5], sys.argv[5:])
"""


@dataclass(frozen=True, slots=True)
class Limits:
    """One call's bounds: seconds, and megabytes of address space."""

    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB


def _process_limit() -> int:
    uid = os.getuid()
    mine = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):  # gone meanwhile
                mine += os.stat(f"/proc/{name}").st_uid == uid
    return mine + EXTRA_PROCESSES


def _environment(workspace: str) -> dict[str, str]:
    """A minimal environment: nothing of the host's secrets reaches the command."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": workspace,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": "/tmp",
    }


async def run_limited(
    tool_name: str, argv: Sequence[str], workspace: str, limits: Limits, *, unjailed: bool
) -> CommandOutcome:
    """`argv` run jailed in `workspace` within `limits`; a ToolError when it cannot run
    jailed and `unjailed` (the project's explicit opt-in, `[tools] unjailed`) is False."""
    jailed = jail_available()
    if not jailed and not unjailed:
        raise ToolError(
            f"{tool_name}: refused: the bwrap jail does not work here (bubblewrap missing, "
            "no user namespaces, or TRIALRUN_JAIL=off), and code never runs unjailed unless "
            "the project sets [tools] unjailed = true in trialrun.toml"
        )
    memory = limits.memory_mb * 1024 * 1024
    files = MAX_FILE_MB * 1024 * 1024
    prelude = [sys.executable, "-I", "-S", "-c", _PRELUDE]
    bounds = [str(memory), str(files), str(_process_limit()), "--"]
    return await run_contained(
        [*prelude, *bounds, *argv],
        workspace,
        limits.timeout_s,
        env=_environment(workspace),
        jail=jailed,
        network=False,
        head_bytes=KEEP_BYTES,
        tail_bytes=KEEP_BYTES,
    )


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def report(tool_name: str, outcome: CommandOutcome, limits: Limits) -> str:
    """What the agent sees: stdout, stderr and a non-zero exit status; a ToolError (with
    the output) when the command failed, ran out of time or out of memory."""
    stdout, stderr = _text(outcome.stdout), _text(outcome.stderr)
    sections = []
    if stdout:
        sections.append(f"=== STDOUT ===\n{stdout.rstrip()}")
    if stderr:
        sections.append(f"=== STDERR ===\n{stderr.rstrip()}")
    shown = "\n".join(sections) if sections else "(no output)"
    if outcome.timed_out:
        raise ToolError(
            f"{tool_name}: stopped after {limits.timeout_s:g}s (the time limit); "
            f"output so far:\n{shown}"
        )
    if outcome.exit_code != 0 and any(sign in stderr for sign in _MEMORY_SIGNS):
        raise ToolError(
            f"{tool_name}: out of memory (the limit is {limits.memory_mb} MB); "
            f"exit status {outcome.exit_code}\n{shown}"
        )
    if outcome.exit_code != 0:
        raise ToolError(f"{tool_name}: exit status {outcome.exit_code}\n{shown}")
    return shown
