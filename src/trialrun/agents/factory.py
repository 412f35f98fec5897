"""Build the agent for `--agent PRESET`, `--agent package.module:function` or
`--agent-cmd "…"` (with `--agent-api` naming the wire API the command speaks)."""

from __future__ import annotations

import re
import shlex
import shutil

from trialrun.agents._settings import AgentSettings
from trialrun.agents._types import Agent
from trialrun.agents.callable import CallableAgent
from trialrun.agents.command import API_ENV, CommandAgent
from trialrun.agents.preset import PresetAgent
from trialrun.agents.presets import get_preset, preset_names
from trialrun.core import load_object
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
    if "\0" in agent_cmd:
        raise UserError("the command holds a NUL character, which no command can take; "
                        "remove it", place="--agent-cmd")
    try:
        words = shlex.split(agent_cmd)
    except ValueError as exc:
        raise UserError(
            f"cannot parse it ({exc}); check the quotes", place="--agent-cmd", value=agent_cmd
        ) from None
    words = [w for w in words if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    if not words:
        return
    program = words[0]
    if "/" in program or "{" in program or "$" in program or program in _SHELL_WORDS:
        return
    if shutil.which(program) is None:
        raise UserError(
            f"program '{program}' not found on PATH; install it or give its full path",
            place="--agent-cmd", value=agent_cmd,
        )


EMPTY_FIX = "or leave the flag out for the built-in tool loop"


def check_agent_choice(agent: str | None, agent_cmd: str | None) -> None:
    """`--agent` / `--agent-cmd` as given: at most one, and not empty (an empty value is a
    mistake, an unset variable, not "use the built-in loop"). The one check of them."""
    if agent_cmd is not None and not agent_cmd.strip():
        raise UserError(
            f'empty command; e.g. --agent-cmd "my-agent --prompt {{prompt}}", {EMPTY_FIX}',
            place="--agent-cmd",
        )
    if agent is not None and not agent.strip():
        raise UserError(f"empty; e.g. --agent my_pkg.agent:run, {EMPTY_FIX}", place="--agent")
    if agent and agent_cmd:
        raise UserError("--agent and --agent-cmd: give one of them, not both")


def check_agent_api(agent_api: str | None, agent_cmd: str | None) -> None:
    if agent_api is None:
        return
    if agent_api not in API_ENV:
        raise UserError(
            f"unknown; use one of {', '.join(API_ENV)}", place="--agent-api", value=agent_api
        )
    if agent_cmd is None:
        raise UserError(
            "only with --agent-cmd (a preset knows its API); "
            f'e.g. --agent-cmd "my-agent {{prompt}}" --agent-api {agent_api}',
            place="--agent-api",
        )


def make_agent(
    agent: str | None,
    agent_cmd: str | None,
    *,
    timeout_s: float | None = None,
    agent_api: str | None = None,
    settings: AgentSettings | None = None,
) -> Agent:
    """The agent under test for `--agent` (a preset or a Python callable) or `--agent-cmd`.
    `settings`: trialrun.toml's [limits] and [agent], from the entry point that loaded
    it; None: the defaults (no file is looked for here)."""
    check_agent_choice(agent, agent_cmd)
    check_agent_api(agent_api, agent_cmd)
    if agent_cmd is not None:
        check_command(agent_cmd)
        return CommandAgent(agent_cmd, timeout_s=timeout_s, api=agent_api, settings=settings)
    if agent and (preset := get_preset(agent.strip())) is not None:
        return PresetAgent(preset, timeout_s=timeout_s, settings=settings)
    if agent and ":" not in agent:
        raise UserError(
            f"not an agent preset ({', '.join(preset_names())}); "
            "else expected package.module:function (or file.py:function)",
            place="--agent", value=agent,
        )
    if agent:
        fn = load_object(agent.strip(), "--agent")
        if not callable(fn):
            raise UserError(
                f"'{agent}' is not callable; point at a function", place="--agent", value=agent
            )
        return CallableAgent(fn, agent.strip(), timeout_s=timeout_s)
    raise UserError(
        "no agent given; pass --agent PRESET or package.module:function, or --agent-cmd COMMAND"
    )
