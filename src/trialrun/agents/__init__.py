"""Agents under test: the built-in tool loop, Python callables, command-line agents and
the agent CLIs people ship (presets: gemini-cli, claude-code, codex)."""

from trialrun.agents._conversing import ConversingAgent
from trialrun.agents._served import NOT_SERVED_PREFIX
from trialrun.agents._settings import AgentSettings
from trialrun.agents._simulated_user import conversation_text
from trialrun.agents._types import Agent, AgentLimits, AgentRun
from trialrun.agents.factory import check_agent_choice, make_agent
from trialrun.agents.loop import ToolLoopAgent
from trialrun.agents.presets import (
    AgentPreset,
    find_binary,
    get_preset,
    npm_install,
    preset_names,
    preset_or_error,
)

__all__ = [
    "NOT_SERVED_PREFIX",
    "check_agent_choice",
    "Agent",
    "AgentLimits",
    "AgentPreset",
    "AgentSettings",
    "AgentRun",
    "ConversingAgent",
    "ToolLoopAgent",
    "conversation_text",
    "find_binary",
    "get_preset",
    "make_agent",
    "npm_install",
    "preset_names",
    "preset_or_error",
]
