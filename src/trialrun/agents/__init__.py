"""Agents under test: the built-in tool loop, Python callables, command-line agents."""

from trialrun.agents._simulated_user import conversation_text
from trialrun.agents._types import Agent, AgentLimits, AgentRun
from trialrun.agents.factory import make_agent
from trialrun.agents.loop import ToolLoopAgent

__all__ = ["Agent", "AgentLimits", "AgentRun", "ToolLoopAgent", "conversation_text", "make_agent"]
