"""What an agent preset knows: its npm package and pinned version, its binary, the wire
API it speaks, its tool names, and how to launch it against the recording proxy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class LaunchContext:
    """One trial's launch: the prompt, the agent's private HOME (outside the workspace),
    the workspace, and the proxy's root URL (no /v1)."""

    prompt: str
    home: Path
    workspace: Path
    proxy_root: str


@dataclass(frozen=True, slots=True)
class Launch:
    """The non-interactive command line (argv[0] is the binary, resolved by the caller)
    and the environment variables that point the agent at the proxy."""

    args: list[str]
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AgentPreset:
    name: str  # the --agent name: gemini-cli, claude-code, codex
    package: str  # its npm package
    version: str  # the version trialrun pins and tests
    binary: str  # the program npm puts on PATH
    api: str  # the wire API it speaks: chat, responses, anthropic or gemini
    tools: tuple[str, ...]  # the tool names it sends the model (README, grader warnings)
    # writes the config files into ctx.home; returns the arguments after the binary and env
    launch: Callable[[LaunchContext], Launch]
    # the model names its CLI asks the proxy for: its configured model and the side
    # requests it makes (each answered by the run's model); any other name is refused
    models: tuple[str, ...] = ()
