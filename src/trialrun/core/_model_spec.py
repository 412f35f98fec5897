"""Model specs (`provider:model-id`) as text: parsing, file-name slugs, pinning.

Pure string work, so the run folder, metrics and reports can name models without
importing the provider registry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trialrun.core._secrets import redact, strip_credentials
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


def split_base_url(model_id: str) -> tuple[str, str | None]:
    """`gpt-4o@http://127.0.0.1:8000/v1` → (`gpt-4o`, `http://127.0.0.1:8000/v1`).

    The URL starts at the last '@http' (as `openai-compat:MODEL@BASE_URL` reads it); no
    URL → (model_id, None).
    """
    index = model_id.rfind("@http")
    return (model_id[:index], model_id[index + 1 :]) if index > 0 else (model_id, None)


def model_name(model_id: str) -> str:
    """The model id without its base URL: `gpt-4o@http://127.0.0.1:8000/v1` → `gpt-4o`."""
    return split_base_url(model_id)[0]


def is_unpinned(model_id: str) -> bool:
    """A moving alias: `-latest`, `-preview` or `:latest` anywhere in the model id.

    The base URL (`…@http://host/v1`) is not looked at: a host name is not a model.
    """
    name = model_name(model_id).lower()
    return any(marker in name for marker in _UNPINNED)


def parse_model_spec(spec: str) -> ModelSpec:
    """`local`, `scripted:PATH`, `openai-compat:MODEL@URL`: provider before the first ':'."""
    spec = spec.strip()
    if not spec:
        raise UserError("empty model spec; use e.g. 'local' or 'scripted:PATH'", place="--model")
    provider, _, model_id = spec.partition(":")
    return ModelSpec(provider=provider, model_id=model_id)


def model_endpoint(spec: str) -> str | None:
    """The base URL of a `provider:MODEL@URL` spec, without credentials (no userinfo,
    secret query values masked); None if it has none."""
    url = split_base_url(spec.strip().partition(":")[2])[1]
    return strip_credentials(url) if url is not None else None


def model_label(spec: str) -> str:
    """The name a model goes by in everything written: no base URL, no secret.

    `openai-compat:gpt-4o@http://u:pw@host/v1` → `openai-compat:gpt-4o`;
    `agent:./my-agent --token X` → `agent:./my-agent --token ***`.
    """
    spec = spec.strip()
    provider, sep, model_id = spec.partition(":")
    return redact(f"{provider}{sep}{model_name(model_id)}")
