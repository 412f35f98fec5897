"""The environment an `--agent-cmd` agent gets: an allowlist, never trialrun's own.

trialrun's environment holds the real provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY,
GEMINI_API_KEY…), cloud credentials and tokens; an agent under test reaches its model
through the recording proxy and needs none of them. It gets:

- PATH, LANG, LANGUAGE, LC_*, TERM and TZ from trialrun's environment;
- HOME: a private folder of its own (the jail's private /tmp when jailed), so nothing
  under the real home (~/.aws, ~/.config, ~/.netrc) is read through $HOME;
- the proxy: OPENAI_BASE_URL / TRIALRUN_PROXY_URL and OPENAI_API_KEY=trialrun, and
  TRIALRUN_TASK_ID, TRIALRUN_WORKSPACE, TRIALRUN_MODEL;
- the variables `trialrun.toml` names under `[agent] env = ["NAME", …]`, passed as set
  (read by the entry point that loaded the file: `AgentSettings`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

PASSED = ("PATH", "LANG", "LANGUAGE", "TERM", "TZ")
_LOCALE = re.compile(r"LC_[A-Z]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PROXY_KEY = "trialrun"  # what the proxy accepts; never a real key
JAILED_HOME = "/tmp"  # the jail's /tmp is a private, empty tmpfs


def agent_environment(
    *,
    proxy_url: str,
    home: str,
    task_id: str,
    workspace: str,
    model: str,
    passed: Sequence[str] = (),
    parent: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The agent's whole environment (see the module docstring); `parent` defaults to
    this process's environment, `passed` are the config's extra names."""
    source = os.environ if parent is None else parent
    env = {
        name: value
        for name, value in source.items()
        if name in PASSED or _LOCALE.fullmatch(name) or name in passed
    }
    env.update(
        HOME=home,
        OPENAI_BASE_URL=proxy_url,
        TRIALRUN_PROXY_URL=proxy_url,
        OPENAI_API_KEY=PROXY_KEY,
        TRIALRUN_TASK_ID=task_id,
        TRIALRUN_WORKSPACE=workspace,
        TRIALRUN_MODEL=model,
    )
    return env


def configured_names(config: ProjectConfig) -> tuple[str, ...]:
    """`[agent] env` of the project's trialrun.toml: the extra variables agents get."""
    names = config.section("agent").get("env", [])
    where = f"{config.path}: [agent] env"
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise UserError(f"{where}: expected a list of variable names; write env = [\"NAME\"]")
    for name in names:
        if not _NAME.fullmatch(name):
            raise UserError(
                f"{where}: {name!r} is not a variable name; use letters, digits and '_'"
            )
    return tuple(names)
