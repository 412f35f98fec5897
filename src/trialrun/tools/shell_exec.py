"""The `shell_exec` tool pack: a shell command run in the bwrap jail, within limits.

`/bin/sh -c COMMAND` in the trial's workspace (or a folder inside it), no network, a
minimal environment, a time and a memory limit (`_jailed`). The parameters are
OpenJarvis's: `command`, `timeout` (seconds, at most the pack's limit), `working_dir`
(relative to the workspace) and `env_passthrough` (accepted, ignored: no host variable
enters the jail). Options: `timeout_s` (the default and the most a call may ask, 30),
`memory_mb` (1024).
"""

from __future__ import annotations

import dataclasses
import shlex
from typing import Any

from trialrun.errors import ToolError
from trialrun.sandbox import resolve_inside
from trialrun.tools._jailed import START_MARGIN_S, Limits, report, run_limited
from trialrun.tools._options import known_options
from trialrun.tools._settings import ToolSettings
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import configured_tool_pack
from trialrun.tools.code_interpreter import limits_of

MAX_COMMAND_BYTES = 100_000
_OPTIONS: dict[str, type | tuple[type, ...]] = {"timeout_s": (int, float), "memory_mb": int}


def _folder(ctx: ToolContext, working_dir: str | None) -> str:
    if working_dir is None:
        return str(ctx.workspace)
    try:
        folder = resolve_inside(ctx.workspace, working_dir, root_name="the workspace")
    except ToolError as exc:
        raise ToolError(f"shell_exec: working_dir: {exc}") from None
    if not folder.is_dir():
        raise ToolError(f"shell_exec: working_dir {working_dir!r} is not a folder")
    return str(folder)


async def run_command(
    ctx: ToolContext,
    command: str,
    timeout: int | None,
    working_dir: str | None,
    limits: Limits,
    *,
    unjailed: bool,
) -> str:
    if not isinstance(command, str) or not command.strip():
        raise ToolError("shell_exec: no command given; put the shell command in 'command'")
    if "\x00" in command or len(command.encode("utf-8", "replace")) > MAX_COMMAND_BYTES:
        raise ToolError(
            f"shell_exec: the command must be text of at most {MAX_COMMAND_BYTES} bytes"
        )
    if timeout is not None:
        if timeout < 1:
            raise ToolError("shell_exec: timeout must be at least 1 second")
        limits = dataclasses.replace(limits, timeout_s=min(float(timeout), limits.timeout_s))
    workspace = str(ctx.workspace)
    folder = _folder(ctx, working_dir)
    if folder != workspace:  # the jail shows the whole workspace; the shell moves into it
        command = f"cd -- {shlex.quote(folder)} || exit 1\n{command}"
    argv = ["/bin/sh", "-c", command]
    outcome = await run_limited("shell_exec", argv, workspace, limits, unjailed=unjailed)
    return report("shell_exec", outcome, limits)


def build(limits: Limits, *, unjailed: bool = False) -> Tool:
    async def shell_exec(
        ctx: ToolContext,
        command: str,
        timeout: int | None = None,
        working_dir: str | None = None,
        env_passthrough: list[str] | None = None,
    ) -> str:
        """Execute a shell command and return its stdout/stderr.

        It runs in an isolated sandbox: no network, a minimal environment, the working
        folder the only writable place, limited time and memory.

        Args:
            command: Shell command to execute.
            timeout: Timeout in seconds (at most the configured limit).
            working_dir: Folder to run in, relative to the working folder (default: it).
            env_passthrough: Ignored: no host environment variable enters the sandbox.
        """
        return await run_command(ctx, command, timeout, working_dir, limits, unjailed=unjailed)

    made = tool(shell_exec, name="shell_exec")
    assert isinstance(made, Tool)
    return dataclasses.replace(made, timeout_s=limits.timeout_s + START_MARGIN_S)


@configured_tool_pack("shell_exec", known_options("shell_exec", _OPTIONS))
def shell_exec_pack(options: dict[str, Any], settings: ToolSettings) -> list[Tool]:
    return [build(limits_of(options), unjailed=settings.unjailed)]
