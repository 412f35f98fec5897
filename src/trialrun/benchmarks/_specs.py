"""A suite's model entry (name, engine, provider, base_url) as a trialrun model spec.

`provider` names any trialrun provider (its `name` is then that provider's model id;
file paths of `scripted` and `local` are relative to the suite file). Engines map to
providers: `ollama` → ollama; `vllm`, `llamacpp`, `sglang`, `mlx` → openai-compat with the
entry's `base_url`, else `$VLLM_BASE_URL` / `$LLAMACPP_BASE_URL` / `$SGLANG_BASE_URL`,
else the engine's usual local port; `cloud` → by the model's name (gpt-/o1/o3/o4 →
openai, claude → anthropic, gemini → gemini; `anthropic/…`, `openai/…`, `google/…` → that
vendor's provider). OpenJarvis's provider `google` is trialrun's `gemini`. A name with
neither, in Ollama's `family:tag` form (`qwen3:8b`), runs on OpenJarvis's default engine,
ollama.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from trialrun.errors import UserError
from trialrun.models import MODEL_PROVIDERS

LOCAL_ENGINES = {
    "vllm": "http://127.0.0.1:8000/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
    "llama.cpp": "http://127.0.0.1:8080/v1",
    "sglang": "http://127.0.0.1:30000/v1",
    "mlx": "http://127.0.0.1:8080/v1",  # mlx_lm.server's default port
}
# OpenJarvis's provider names for trialrun's, and the vendor prefixes of `vendor/model`
PROVIDER_ALIASES = {"google": "gemini"}
VENDOR_PREFIXES = {"anthropic": "anthropic", "openai": "openai", "google": "gemini",
                   "gemini": "gemini"}
ENGINES = ("cloud", "ollama", *LOCAL_ENGINES)
_CLOUD = (
    (("gpt-", "o1", "o3", "o4", "chatgpt"), "openai"),
    (("claude",), "anthropic"),
    (("gemini",), "gemini"),
)
PATH_PROVIDERS = ("scripted", "local")
_OLLAMA_TAG = re.compile(r"[a-z0-9][\w.-]*:[\w.-]+")


def cloud_provider(name: str) -> str | None:
    lowered = name.lower()
    for prefixes, provider in _CLOUD:
        if lowered.startswith(prefixes):
            return provider
    return None


def _with_path(provider: str, model_id: str, base: Path) -> str:
    if provider in PATH_PROVIDERS and model_id:
        path = Path(model_id).expanduser()
        if not path.is_absolute() and (base / path).exists():
            model_id = str((base / path).resolve())
    return f"{provider}:{model_id}" if model_id else provider


def model_spec(
    name: str,
    *,
    where: str,
    base: Path,
    engine: str | None = None,
    provider: str | None = None,
    base_url: str | None = None,
) -> str:
    """The trialrun spec for one entry; `where` prefixes every error (file, section, entry)."""
    known = MODEL_PROVIDERS.names()
    provider = PROVIDER_ALIASES.get(provider, provider) if provider else provider
    if provider:
        if provider not in known:
            raise UserError(
                f"{where}: provider: unknown provider '{provider}'; known: {', '.join(known)}"
            )
        if provider == "openai-compat":
            url = base_url or os.environ.get("OPENAI_BASE_URL")
            if not url and "@" not in name:
                raise UserError(
                    f"{where}: base_url: provider openai-compat needs base_url = "
                    '"http://HOST:PORT/v1" (or OPENAI_BASE_URL)'
                )
            return (
                f"openai-compat:{name}@{url}" if url and "@" not in name else f"{provider}:{name}"
            )
        return _with_path(provider, name, base)
    if engine:
        key = engine.lower()
        if key == "ollama":
            return f"ollama:{name}"
        if key in LOCAL_ENGINES:
            env = key.replace(".", "").upper() + "_BASE_URL"
            url = base_url or os.environ.get(env) or LOCAL_ENGINES[key]
            return f"openai-compat:{name}@{url}"
        if key == "cloud":
            found = cloud_provider(name)
            if found is None:
                raise UserError(
                    f"{where}: engine: cloud model '{name}' names no known provider; set "
                    f"provider = one of {', '.join(known)}"
                )
            return f"{found}:{name}"
        raise UserError(f"{where}: engine: unknown engine '{engine}'; known: {', '.join(ENGINES)}")
    prefix, sep, rest = name.partition(":")
    if sep and prefix in known:
        return _with_path(prefix, rest, base)
    found = cloud_provider(name)
    if found is not None:
        return f"{found}:{name}"
    vendor, slash, model_id = name.partition("/")
    if slash and vendor.lower() in VENDOR_PREFIXES and model_id:
        return f"{VENDOR_PREFIXES[vendor.lower()]}:{model_id}"
    if _OLLAMA_TAG.fullmatch(name):  # `family:tag` on OpenJarvis's default engine, ollama
        return f"ollama:{name}"
    raise UserError(
        f"{where}: name: cannot tell the provider of '{name}'; set provider = one of "
        f"{', '.join(known)} (or engine = one of {', '.join(ENGINES)})"
    )


def model_slug(name: str) -> str:
    """A model's name in output file names: `/` and `:` become `-`."""
    return name.replace("/", "-").replace(":", "-")
