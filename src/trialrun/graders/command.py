"""The `command` grader: run a command in the workspace; pass on the expected exit code.

Runs through `trialrun.sandbox.run_contained` (other trials keep going): in the bwrap jail
when it works here (no network, only the host paths a command needs, read-only, private
/tmp and /run, the workspace the only writable path), and always with the marker sweep,
so nothing it starts survives it and a background child can't hang it. The verdict is
the command's own exit code. Output tails are kept in details. Per-trial options in
`TrialView.extra`: `jail` (None = bwrap when available, True = required, False = never)
and `network` (default False).
"""

from __future__ import annotations

import math
import os
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema, field_validator

from trialrun.errors import InfraError
from trialrun.graders._types import GraderConfig, TrialView, Verdict, grader
from trialrun.sandbox import run_contained

TAIL_CHARS = 4000
# A command's time limit: finite, at most a day (a task's own `timeout_s` limit), and at
# run time never more than its task's `timeout_s` (`TrialView.task_timeout_s`).
MAX_TIMEOUT_S = 86_400.0
_TAIL_BYTES = 4 * TAIL_CHARS  # enough bytes for TAIL_CHARS characters of UTF-8


_NO_NUL = {"type": "string", "pattern": "^[^\\u0000]*$"}
_RUN_SCHEMA = {"anyOf": [_NO_NUL, {"type": "array", "items": _NO_NUL}], "title": "Run"}


class CommandConfig(GraderConfig):
    type: Literal["command"] = "command"
    run: Annotated[str | list[str], WithJsonSchema(_RUN_SCHEMA)]
    timeout_s: float = Field(60, strict=True, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    expect_exit: int = 0

    @field_validator("run")
    @classmethod
    def _non_empty(cls, run: str | list[str]) -> str | list[str]:
        if (isinstance(run, str) and not run.strip()) or (isinstance(run, list) and not run):
            raise ValueError("run must be a non-empty command string or argv list")
        if any("\0" in part for part in ([run] if isinstance(run, str) else run)):
            raise ValueError("run holds a NUL character, which no command can take; remove it")
        return run


def command_timeout(config: CommandConfig, trial: TrialView) -> float:
    """The time limit the command runs under: its `timeout_s`, clamped to a finite value no
    longer than a day or its task's `timeout_s` (a config built in code skips validation)."""
    limit = config.timeout_s
    if not (math.isfinite(limit) and 0 < limit <= MAX_TIMEOUT_S):
        limit = MAX_TIMEOUT_S
    task_limit = trial.task_timeout_s
    if task_limit is not None and math.isfinite(task_limit) and 0 < task_limit < limit:
        limit = task_limit
    return limit


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= TAIL_CHARS else "…" + text[-TAIL_CHARS:]


@grader("command", CommandConfig)
async def command(config: CommandConfig, trial: TrialView) -> Verdict:
    timeout_s = command_timeout(config, trial)
    details: dict[str, Any] = {
        "command": config.run,
        "expect_exit": config.expect_exit,
        "timeout_s": timeout_s,
    }
    if trial.workspace is None:
        details["error"] = "no workspace to run in (sandbox: none)"
        return Verdict(config.label, None, details)
    try:
        outcome = await run_contained(
            config.run,
            os.fspath(trial.workspace),
            timeout_s,
            jail=trial.extra.get("jail"),
            network=bool(trial.extra.get("network", False)),
            tail_bytes=_TAIL_BYTES,
        )
    except InfraError as exc:
        details["error"] = str(exc)
        return Verdict(config.label, None, details)
    except FileNotFoundError as exc:
        details["error"] = f"command not found: {exc.filename or config.run}"
        return Verdict(config.label, None, details)
    except PermissionError as exc:
        details["error"] = f"command not executable: {exc.filename or config.run}"
        return Verdict(config.label, None, details)
    details.update(
        exit_code=outcome.exit_code,
        timed_out=outcome.timed_out,
        stdout=_tail(outcome.stdout),
        stderr=_tail(outcome.stderr),
        sandbox=outcome.sandbox,
    )
    if outcome.swept:
        details["killed_processes"] = outcome.swept
    if outcome.timed_out:
        details["reason"] = f"timed out after {timeout_s:g}s (all its processes killed)"
        return Verdict(config.label, False, details)
    return Verdict(config.label, outcome.exit_code == config.expect_exit, details)
