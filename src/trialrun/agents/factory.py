"""Build the agent for `--agent package.module:function` or `--agent-cmd "…"`."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from trialrun.agents._types import Agent
from trialrun.errors import UserError

# words a shell runs without a program on PATH
_SHELL_WORDS = frozenset(
    {"!", "{", "(", "[", "[[", ".", ":", "alias", "builtin", "case", "cd", "command", "eval"}
    | {"exec", "exit", "export", "for", "function", "if", "read", "set", "source", "test"}
    | {"time", "trap", "true", "false", "ulimit", "umask", "unset", "until", "while"}
)


def check_command(agent_cmd: str) -> None:
    """A bare program name that is not on PATH: one clear error now, not k failed trials.

    Only the first word is checked (after VAR=value assignments); a path with a '/' is left
    alone because it is resolved inside the trial's workspace.
    """
    import re
    import shlex
    import shutil

    try:
        words = shlex.split(agent_cmd)
    except ValueError as exc:
        raise UserError(
            f"--agent-cmd {agent_cmd}: cannot parse it ({exc}); check the quotes"
        ) from None
    words = [w for w in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    if not words:
        return
    program = words[0]
    if "/" in program or "{" in program or "$" in program or program in _SHELL_WORDS:
        return
    if shutil.which(program) is None:
        raise UserError(
            f"--agent-cmd {agent_cmd}: program '{program}' not found on PATH; install it or "
            "give its full path"
        )


def load_object(ref: str, flag: str) -> Any:
    """`package.module:attr` or `path/to/file.py:attr` → the object, or a UserError."""
    module_name, sep, attr = ref.rpartition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"{flag} {ref}: expected package.module:function (or file.py:function)")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UserError(f"{flag} {ref}: file {path} not found")
            name = f"_trialrun_user_{abs(hash(str(path.resolve())))}"
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise UserError(f"{flag} {ref}: cannot load {path} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            if str(Path.cwd()) not in sys.path and "" not in sys.path:
                sys.path.insert(0, str(Path.cwd()))
            module = importlib.import_module(module_name)
    except UserError:
        raise
    except ImportError as exc:
        raise UserError(
            f"{flag} {ref}: cannot import '{module_name}' ({exc}); install it or run from the "
            "folder that contains it"
        ) from None
    except Exception as exc:
        raise UserError(
            f"{flag} {ref}: importing '{module_name}' raised {type(exc).__name__}: {exc}"
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UserError(f"{flag} {ref}: '{module_name}' has no attribute '{attr}'") from None


def make_agent(
    agent: str | None, agent_cmd: str | None, *, timeout_s: float | None = None
) -> Agent:
    """The agent under test for `--agent` (a Python callable) or `--agent-cmd` (a command)."""
    if agent and agent_cmd:
        raise UserError("--agent and --agent-cmd: give one of them, not both")
    if agent_cmd is not None:
        if not agent_cmd.strip():
            raise UserError(
                '--agent-cmd: empty command; e.g. --agent-cmd "my-agent --prompt {prompt}"'
            )
        check_command(agent_cmd)
        from trialrun.agents.command import CommandAgent

        return CommandAgent(agent_cmd, timeout_s=timeout_s)
    if agent:
        fn = load_object(agent.strip(), "--agent")
        if not callable(fn):
            raise UserError(f"--agent {agent}: '{agent}' is not callable; point at a function")
        from trialrun.agents.callable import CallableAgent

        return CallableAgent(fn, agent.strip(), timeout_s=timeout_s)
    raise UserError("no agent given; pass --agent package.module:function or --agent-cmd COMMAND")
