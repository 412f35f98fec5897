"""Model specs (`provider:model-id`) as text: parsing, file-name slugs, pinning.

Pure string work, so the run folder, metrics and reports can name models without
importing the provider registry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trialrun.errors import UserError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_UNPINNED = ("-latest", "-preview", ":latest")


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
