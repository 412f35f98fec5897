"""Agent presets: the agent CLIs people ship (gemini-cli, Claude Code, Codex), run against
the recording proxy with a private HOME, offline, and installed with
`trialrun agents install NAME`."""

from trialrun.agents.presets._install import (
    Found,
    agents_dir,
    find_binary,
    install_prefix,
    npm_install,
    require_binary,
)
from trialrun.agents.presets._registry import AGENT_PRESETS
from trialrun.agents.presets._types import AgentPreset, Launch, LaunchContext
from trialrun.errors import UserError


def get_preset(name: str) -> AgentPreset | None:
    return AGENT_PRESETS.get(name)


def preset_names() -> list[str]:
    return AGENT_PRESETS.names()


def preset_or_error(name: str, where: str = "--agent") -> AgentPreset:
    preset = AGENT_PRESETS.get(name)
    if preset is None:
        hint = AGENT_PRESETS.suggest(name)
        known = ", ".join(preset_names())
        raise UserError(
            f"{where} {name}: no such agent preset"
            + (f"; did you mean {hint}?" if hint else f"; known: {known}")
        )
    return preset


__all__ = [
    "AGENT_PRESETS",
    "AgentPreset",
    "Found",
    "Launch",
    "LaunchContext",
    "agents_dir",
    "find_binary",
    "get_preset",
    "install_prefix",
    "npm_install",
    "preset_names",
    "preset_or_error",
    "require_binary",
]
