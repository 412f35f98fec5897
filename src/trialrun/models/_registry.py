"""Model specs (`provider:model-id`) and the provider registry.

A provider is a factory `(model_id: str, options: dict) -> Model`, registered with
`@model_provider("name")` or through the `trialrun.models` entry point group.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trialrun._registry import Registry
from trialrun.errors import UserError
from trialrun.models._types import Model

ModelFactory = Callable[[str, dict[str, Any]], Model]

MODEL_PROVIDERS: Registry[ModelFactory] = Registry(
    "model provider",
    "trialrun.models",
    builtin_modules=("trialrun.models.builtin",),
)

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_UNPINNED = ("-latest", "-preview", ":latest")


def model_provider(name: str) -> Callable[[ModelFactory], ModelFactory]:
    """Register a model provider factory under `name` (the part of a spec before ':')."""
    return MODEL_PROVIDERS.register(name)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    provider: str
    model_id: str

    @property
    def text(self) -> str:
        return f"{self.provider}:{self.model_id}" if self.model_id else self.provider

    @property
    def slug(self) -> str:
        return slugify(self.text)


def slugify(text: str) -> str:
    """Every character outside [A-Za-z0-9._-] becomes '-' (`gemma4:e4b` → `gemma4-e4b`)."""
    return _UNSAFE.sub("-", text)


def is_unpinned(model_id: str) -> bool:
    return model_id.endswith(_UNPINNED)


def parse_model_spec(spec: str) -> ModelSpec:
    """`local`, `scripted:PATH`, `openai-compat:MODEL@URL`: provider before the first ':'."""
    spec = spec.strip()
    if not spec:
        raise UserError("--model: empty model spec; use e.g. 'local' or 'scripted:PATH'")
    provider, _, model_id = spec.partition(":")
    return ModelSpec(provider=provider, model_id=model_id)


_MODEL_FLAG = re.compile(r"(?<![\w-])--model\b")


def create_model(
    spec: str | ModelSpec, options: dict[str, Any] | None = None, *, flag: str = "--model"
) -> Model:
    """The Model for `spec`. `flag` is where the spec came from (`--judge`, a config key):
    every UserError a provider raises names it instead of `--model`."""
    try:
        parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
        factory = MODEL_PROVIDERS.get(parsed.provider)
        if factory is None:
            hint = MODEL_PROVIDERS.suggest(parsed.provider)
            known = ", ".join(MODEL_PROVIDERS.names())
            did = f" (did you mean '{hint}'?)" if hint else ""
            raise UserError(
                f"--model {parsed.text}: unknown provider '{parsed.provider}'{did}; "
                f"known: {known}"
            )
        return factory(parsed.model_id, options or {})
    except UserError as exc:
        if flag == "--model":
            raise
        message = _MODEL_FLAG.sub(lambda _m: flag, str(exc))
        raise UserError(message, exc.exit_code) from None
