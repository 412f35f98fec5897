"""Agents under test: the built-in tool loop, Python callables, command-line agents."""

from trialrun.agents._types import Agent, AgentLimits, AgentRun

__all__ = ["Agent", "AgentLimits", "AgentRun"]
