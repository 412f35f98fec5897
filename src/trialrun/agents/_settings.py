"""What trialrun.toml sets for the agents trialrun runs as commands (`--agent-cmd`, the
presets), read once by the entry point that loaded the file and handed to `make_agent`:
`[limits]` (the largest request the proxy reads, how much output is kept), `[agent] env`
(variables passed through) and `[agent] models` (names answered by the run's model).
A direct library caller that passes none gets `AgentSettings()`: the defaults, no
variables passed, no extra names answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trialrun.agents._env import configured_names
from trialrun.agents._served import configured_models
from trialrun.config import ProjectConfig
from trialrun.models import ReadLimits


@dataclass(frozen=True, slots=True)
class AgentSettings:
    limits: ReadLimits = field(default_factory=ReadLimits)
    passed_env: tuple[str, ...] = ()  # [agent] env
    model_aliases: tuple[str, ...] = ()  # [agent] models

    @classmethod
    def from_config(cls, config: ProjectConfig) -> AgentSettings:
        """Read and checked here, once: a bad value is a UserError before any trial."""
        return cls(ReadLimits.load(config), configured_names(config), configured_models(config))
