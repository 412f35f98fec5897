"""The `command` grader: run a command in the workspace; pass on the expected exit code.

Runs as an asyncio subprocess (other trials keep going) in its own process group, which
is killed as a whole on timeout. Output tails are kept in details.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any, Literal

from pydantic import Field, field_validator

from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader

TAIL_CHARS = 4000


class CommandConfig(GraderConfig):
    type: Literal["command"] = "command"
    run: str | list[str]
    timeout_s: float = Field(60, gt=0)
    expect_exit: int = 0

    @field_validator("run")
    @classmethod
    def _non_empty(cls, run: str | list[str]) -> str | list[str]:
        if (isinstance(run, str) and not run.strip()) or (isinstance(run, list) and not run):
            raise ValueError("run must be a non-empty command string or argv list")
        return run


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= TAIL_CHARS else "…" + text[-TAIL_CHARS:]


async def _drain(stream: asyncio.StreamReader | None, sink: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        sink.extend(chunk)
        if len(sink) > 4 * TAIL_CHARS * 4:  # keep memory bounded: only the tail matters
            del sink[: len(sink) - 4 * TAIL_CHARS]


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def run_command(
    run: str | list[str], cwd: str, timeout_s: float
) -> tuple[int | None, bytes, bytes, bool]:
    """(exit code, stdout, stderr, timed_out). Raises FileNotFoundError for a missing argv[0]."""
    common: dict[str, Any] = dict(
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    if isinstance(run, str):
        proc = await asyncio.create_subprocess_shell(run, **common)
    else:
        proc = await asyncio.create_subprocess_exec(*map(str, run), **common)
    out, err = bytearray(), bytearray()
    readers = asyncio.gather(_drain(proc.stdout, out), _drain(proc.stderr, err))
    timed_out = False
    try:
        await asyncio.wait_for(proc.wait(), timeout_s)
    except TimeoutError:
        timed_out = True
        _kill_group(proc)
        await proc.wait()
    except asyncio.CancelledError:
        _kill_group(proc)
        readers.cancel()
        raise
    try:
        # a daemonised grandchild may keep the pipes open: do not wait for it forever
        await asyncio.wait_for(readers, 5)
    except TimeoutError:
        _kill_group(proc)
        readers.cancel()
    return proc.returncode, bytes(out), bytes(err), timed_out


@grader("command", CommandConfig)
async def command(config: CommandConfig, trial: TrialView) -> Verdict:
    details: dict[str, Any] = {
        "command": config.run,
        "expect_exit": config.expect_exit,
        "timeout_s": config.timeout_s,
    }
    if trial.workspace is None:
        details["error"] = "no workspace to run in (sandbox: none)"
        return Verdict(config.label, None, details)
    try:
        code, out, err, timed_out = await run_command(
            config.run, os.fspath(trial.workspace), config.timeout_s
        )
    except FileNotFoundError as exc:
        details["error"] = f"command not found: {exc.filename or config.run}"
        return Verdict(config.label, None, details)
    except PermissionError as exc:
        details["error"] = f"command not executable: {exc.filename or config.run}"
        return Verdict(config.label, None, details)
    details.update(exit_code=code, timed_out=timed_out, stdout=_tail(out), stderr=_tail(err))
    if timed_out:
        details["reason"] = f"timed out after {config.timeout_s:g}s (process group killed)"
        return Verdict(config.label, False, details)
    return Verdict(config.label, code == config.expect_exit, details)
