"""Which model names an agent may ask the recording proxy for.

The proxy answers every request with the run's model; an agent asking for another model
by name would otherwise be answered by one it did not ask for, silently. So a request
naming a model is answered only when the name is the run's model (its label, e.g.
`openai:gpt-4o`, or its id, `gpt-4o`) or an alias the agent is known to send: a preset's
own names (its configured model and the side requests its CLI makes, e.g. gemini-cli's
flash-lite helpers), and `[agent] models` in trialrun.toml (read by the entry point that
loaded the file: `AgentSettings`).
Anything else gets a 404 in the API's own error shape naming both models, and the trial
is an infra error (the run's set-up, not the model, is wrong). A request that names no
model is the run's.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import unquote

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

# every refusal starts so: the CLI prints such an infra error as its own line
NOT_SERVED_PREFIX = "the agent asked for model "


@dataclass(frozen=True, slots=True)
class ServedModels:
    """The names answered (`label` first, the name agents see) and how to fix a refusal."""

    label: str
    names: frozenset[str]
    fix: str

    @classmethod
    def of(cls, label: str, model_id: str, aliases: Collection[str], fix: str) -> ServedModels:
        return cls(label, frozenset({label, model_id, *aliases}), fix)

    def refusal(self, requested: str | None) -> str | None:
        """Why `requested` is not answered (one line), or None when it is."""
        # a Gemini client puts the name in the URL path: percent-encoded, maybe `models/`
        name = unquote(requested or "").strip().removeprefix("models/")
        if not name or name in self.names:
            return None
        shown = name if len(name) <= 120 else name[:120] + "…"
        return (
            f"{NOT_SERVED_PREFIX}'{shown}', but this run serves '{self.label}' "
            f"(--model); {self.fix}"
        )


def configured_models(config: ProjectConfig) -> tuple[str, ...]:
    """`[agent] models` of the project's trialrun.toml: the model names an `--agent-cmd`
    agent may ask for, each answered by the run's model."""
    names = config.section("agent").get("models", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise UserError(
            f"{config.path}: [agent] models: expected a list of model names; "
            'write models = ["gpt-4o-mini"]'
        )
    return tuple(n.strip() for n in names)


COMMAND_FIX = (
    "have the agent ask for $TRIALRUN_MODEL, or list the name under [agent] models in "
    "trialrun.toml to answer it with the run's model"
)


def preset_fix(preset: str, names: Collection[str]) -> str:
    return (
        f"{preset} asks for {', '.join(sorted(names))}; list the name under [agent] models in "
        "trialrun.toml to answer it with the run's model"
    )
