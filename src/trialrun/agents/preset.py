"""A preset agent: `--agent gemini-cli | claude-code | codex`, the real CLI under test.

Per trial: a recording proxy for the run's model, a private HOME (a temporary folder
outside the workspace the graders diff, removed afterwards) holding the config files
that point the CLI at the proxy with a throwaway key, update checks and telemetry off; a
small environment (no host keys, no HTTP proxy for loopback); the CLI's non-interactive
command line; in the bwrap jail whenever bwrap works (the workspace and that HOME
writable, the CLI's install folder read-only), swept otherwise; its whole process tree
killed at the task's timeout. The transcript is read from the proxy's traffic, as for
`--agent-cmd`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from trialrun.agents._proxy import RecordingProxy
from trialrun.agents._types import AgentLimits, AgentRun
from trialrun.agents.command import DEFAULT_TIMEOUT_S, finish_run
from trialrun.agents.loop import user_message
from trialrun.agents.presets import AgentPreset, LaunchContext, require_binary
from trialrun.sandbox import run_contained

if TYPE_CHECKING:
    from trialrun.models import Model
    from trialrun.tasks import Task
    from trialrun.tools import Toolbox

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
        self, preset: AgentPreset, timeout_s: float | None = None, jail: bool | None = None
    ) -> None:
        self.preset = preset
        self.found = require_binary(preset)  # one clear line now, not k failed trials
        self.timeout_s = timeout_s
        self.jail = jail  # None: bwrap whenever it works; a trial's extra["jail"] overrides
        self.name = preset.name

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
        try:
            async with RecordingProxy(
                model, task_id=task.task_id, trial=extra.get("trial")
            ) as proxy:
                ctx = LaunchContext(prompt, home, cwd, proxy.root_url)
                launch = self.preset.launch(ctx)
                env = base_env(home)
                env.update(launch.env)
                env.update(TRIALRUN_TASK_ID=task.task_id, TRIALRUN_WORKSPACE=str(cwd))
                readable = [str(self.found.prefix)] if self.found.prefix is not None else []
                outcome = await run_contained(
                    [self.found.binary, *launch.args],
                    str(cwd),
                    timeout,
                    env=env,
                    jail=extra.get("jail", self.jail),
                    network=True,
                    writable=[str(home)],
                    readable=readable,
                )
            return finish_run(proxy, outcome, prompt, timeout)
        finally:
            shutil.rmtree(home, ignore_errors=True)
