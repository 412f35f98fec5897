"""The `code_interpreter` tool pack: Python code run in the bwrap jail, within limits.

The code runs with this Python (`python -c CODE`), its working folder the trial's
workspace, no network, a time and a memory limit (`_jailed`); stdout, stderr and a
non-zero exit status come back, each stream cut to its first and last 8 KiB. The
parameter is OpenJarvis's (`code`). Options: `timeout_s` (default 30), `memory_mb`
(default 1024), e.g. `{code_interpreter: {timeout_s: 10}}`.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from trialrun.errors import ToolError
from trialrun.tools._jailed import START_MARGIN_S, Limits, report, run_limited
from trialrun.tools._options import known_options
from trialrun.tools._settings import ToolSettings
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import configured_tool_pack

MAX_CODE_BYTES = 100_000  # one argv string: below the kernel's 128 KiB per argument
_OPTIONS: dict[str, type | tuple[type, ...]] = {"timeout_s": (int, float), "memory_mb": int}


def limits_of(options: dict[str, Any]) -> Limits:
    defaults = Limits()
    return Limits(
        timeout_s=float(options.get("timeout_s", defaults.timeout_s)),
        memory_mb=int(options.get("memory_mb", defaults.memory_mb)),
    )


async def run_code(ctx: ToolContext, code: str, limits: Limits, *, unjailed: bool) -> str:
    if not isinstance(code, str) or not code.strip():
        raise ToolError("code_interpreter: no code given; put Python source in 'code'")
    if "\x00" in code:
        raise ToolError("code_interpreter: the code contains a NUL byte")
    size = len(code.encode("utf-8", "replace"))
    if size > MAX_CODE_BYTES:
        raise ToolError(
            f"code_interpreter: the code is {size} bytes; send at most {MAX_CODE_BYTES}"
        )
    workspace = str(ctx.workspace)
    argv = [sys.executable, "-c", code]
    outcome = await run_limited("code_interpreter", argv, workspace, limits, unjailed=unjailed)
    return report("code_interpreter", outcome, limits)


def build(limits: Limits, *, unjailed: bool = False) -> Tool:
    async def code_interpreter(ctx: ToolContext, code: str) -> str:
        """Execute Python code and return its output (stdout, stderr, exit status).

        The code runs in an isolated sandbox: no network, the working folder the only
        writable place, limited time and memory. Print what you want to see.

        Args:
            code: Python code to execute.
        """
        return await run_code(ctx, code, limits, unjailed=unjailed)

    made = tool(code_interpreter, name="code_interpreter")
    assert isinstance(made, Tool)
    return dataclasses.replace(made, timeout_s=limits.timeout_s + START_MARGIN_S)


@configured_tool_pack("code_interpreter", known_options("code_interpreter", _OPTIONS))
def code_interpreter_pack(options: dict[str, Any], settings: ToolSettings) -> list[Tool]:
    return [build(limits_of(options), unjailed=settings.unjailed)]
