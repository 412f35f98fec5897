"""A preset agent: `--agent gemini-cli | claude-code | codex`, the real CLI under test.

Per trial: a recording proxy for the run's model, a private HOME (a temporary folder
outside the workspace the graders diff, removed afterwards) holding the config files
that point the CLI at the proxy with a throwaway key, update checks and telemetry off; a
small environment (no host keys, no HTTP proxy for loopback); the CLI's non-interactive
command line; in the bwrap jail whenever bwrap works (the workspace and that HOME
writable, the CLI's install folder read-only; no network but its own loopback, where
`_loopback_bridge` forwards the proxy's port to the proxy's UNIX socket), swept otherwise
(then on the host's loopback); its whole process tree killed at the task's timeout. The
transcript is read from the proxy's traffic, as for `--agent-cmd`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from trialrun.agents._proxy import RecordingProxy
from trialrun.agents._served import preset_fix
from trialrun.agents._settings import AgentSettings
from trialrun.agents._types import AgentLimits, AgentRun
from trialrun.agents.command import DEFAULT_TIMEOUT_S, finish_run
from trialrun.agents.loop import user_message
from trialrun.agents.presets import AgentPreset, LaunchContext, require_binary
from trialrun.sandbox import jail_available, run_contained

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import Task
    from trialrun.tools import Toolbox

_BRIDGE = Path(__file__).with_name("_loopback_bridge.py")
# host variables an agent CLI may see; keys and proxies stay out
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL")


def base_env(home: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        TERM="dumb",
        NO_COLOR="1",
        CI="1",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        NO_UPDATE_NOTIFIER="1",
        NPM_CONFIG_UPDATE_NOTIFIER="false",
    )
    return env


class PresetAgent:
    """Runs an agent preset's CLI per trial (see the module docstring)."""

    def __init__(
        self,
        preset: AgentPreset,
        timeout_s: float | None = None,
        jail: bool | None = None,
        settings: AgentSettings | None = None,
    ) -> None:
        self.preset = preset
        self.found = require_binary(preset)  # one clear line now, not k failed trials
        self.timeout_s = timeout_s
        self.jail = jail  # None: bwrap whenever it works; a trial's extra["jail"] overrides
        self.name = preset.name
        settings = settings or AgentSettings()  # the project's; None: the defaults
        self.read_limits = settings.limits  # trialrun.toml [limits]
        # the names its CLI asks for, and [agent] models: all answered by the run's model
        self.model_aliases = (*preset.models, *settings.model_aliases)

    async def run(
        self,
        task: Task,
        workspace: Path | None,
        toolbox: Toolbox,
        model: Model | None,
        limits: AgentLimits,
    ) -> AgentRun:
        prompt = user_message(task, workspace)
        cwd = workspace if workspace is not None else Path.cwd()
        timeout = limits.timeout_s or self.timeout_s or DEFAULT_TIMEOUT_S
        extra = toolbox.ctx.extra if toolbox is not None else {}
        home = Path(tempfile.mkdtemp(prefix=f"trialrun-{self.preset.name}-home-"))
        bridge_dir = Path(tempfile.mkdtemp(prefix="trialrun-proxy-"))
        jail = extra.get("jail", self.jail)
        jailed = jail_available() if jail is None else jail
        try:
            async with RecordingProxy(
                model,
                task_id=task.task_id,
                trial=extra.get("trial"),
                max_body=self.read_limits.max_body_bytes,
                aliases=self.model_aliases,
                fix=preset_fix(self.preset.name, self.preset.models),
            ) as proxy:
                ctx = LaunchContext(prompt, home, cwd, proxy.root_url)
                launch = self.preset.launch(ctx)
                env = base_env(home)
                env.update(launch.env)
                env.update(TRIALRUN_TASK_ID=task.task_id, TRIALRUN_WORKSPACE=str(cwd))
                readable = [str(self.found.prefix)] if self.found.prefix is not None else []
                argv = [self.found.binary, *launch.args]
                writable = [str(home)]
                unix_server = None
                if jailed:  # no network in the jail: the proxy through a UNIX socket
                    sock = bridge_dir / "proxy.sock"
                    unix_server = await asyncio.start_unix_server(proxy._serve, path=str(sock))
                    argv = [sys.executable, "-I", "-S", str(_BRIDGE), str(sock),
                            str(proxy.port), "--", *argv]  # fmt: skip
                    readable.append(str(bridge_dir))
                keep = self.read_limits.max_agent_output_bytes
                try:
                    outcome = await run_contained(
                        argv,
                        str(cwd),
                        timeout,
                        env=env,
                        jail=jailed,
                        network=not jailed,
                        writable=writable,
                        readable=readable,
                        head_bytes=keep // 2,
                        tail_bytes=keep - keep // 2,
                    )
                finally:
                    if unix_server is not None:
                        unix_server.close()
            return finish_run(proxy, outcome, prompt, timeout, keep)
        finally:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(bridge_dir, ignore_errors=True)
