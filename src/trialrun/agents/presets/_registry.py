"""The agent presets by name: built-ins, and others through the `trialrun.agents`
entry point group."""

from __future__ import annotations

from trialrun.agents.presets._types import AgentPreset
from trialrun.core import Registry

AGENT_PRESETS: Registry[AgentPreset] = Registry(
    "agent preset",
    "trialrun.agents",
    (
        "trialrun.agents.presets._gemini_cli",
        "trialrun.agents.presets._claude_code",
        "trialrun.agents.presets._codex",
    ),
)
