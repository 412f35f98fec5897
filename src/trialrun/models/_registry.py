"""Model specs (`provider:model-id`) and the provider registry.

A provider is a factory `(model_id: str, options: dict) -> Model`, registered with
`@model_provider("name")` or through the `trialrun.models` entry point group. The
project's settings for model clients (`ProviderSettings`: [retries], [limits],
[pricing]) arrive in `options` (read them with `ProviderSettings.of(options)`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trialrun.core import ModelSpec, Registry, is_unpinned, parse_model_spec, redact, slugify
from trialrun.errors import UserError
from trialrun.models._settings import SETTINGS_OPTION, ProviderSettings
from trialrun.models._types import Model

__all__ = [
    "MODEL_PROVIDERS",
    "ModelFactory",
    "ModelSpec",
    "create_model",
    "is_unpinned",
    "model_provider",
    "parse_model_spec",
    "slugify",
]

ModelFactory = Callable[[str, dict[str, Any]], Model]

MODEL_PROVIDERS: Registry[ModelFactory] = Registry(
    "model provider",
    "trialrun.models",
    builtin_modules=("trialrun.models.builtin",),
)


def model_provider(name: str) -> Callable[[ModelFactory], ModelFactory]:
    """Register a model provider factory under `name` (the part of a spec before ':')."""
    return MODEL_PROVIDERS.register(name)


def create_model(
    spec: str | ModelSpec,
    options: dict[str, Any] | None = None,
    *,
    flag: str = "--model",
    settings: ProviderSettings | None = None,
) -> Model:
    """The Model for `spec`. `flag` is where the spec came from (`--judge`, a config key):
    a UserError a provider raises at `--model` (its `place`) is re-labelled to it. `settings`:
    the project's [retries], [limits] and [pricing], from the entry point that loaded
    trialrun.toml; None: the defaults (no file is looked for here)."""
    try:
        parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
        factory = MODEL_PROVIDERS.get(parsed.provider)
        if factory is None:
            hint = MODEL_PROVIDERS.suggest(parsed.provider)
            known = ", ".join(MODEL_PROVIDERS.names())
            did = f" (did you mean '{hint}'?)" if hint else ""
            raise UserError(
                f"unknown provider '{parsed.provider}'{did}; known: {known}",
                place="--model", value=parsed.text,
            )
        options = dict(options or {})
        if settings is not None:
            options[SETTINGS_OPTION] = settings
        return factory(parsed.model_id, options)
    except UserError as exc:  # a spec's URL may hold credentials: never in the message
        shown = exc.shown_with(redact)
        raise (shown.at(flag) if exc.place == "--model" else shown) from None
