"""An `InferenceBackend` object as the model under test: `run_benchmark(pair, dataset,
backend=MyBackend())` / `EvalRunner(config, dataset, MyBackend(), scorer)`, as the seed's
API takes one.

The object is kept in this process under a spec `inference-backend:KEY` (the model
provider of that name, registered on first use, finds it), so the trial's `direct`
backend calls it like any model and its usage and cost are counted. Either shape works:
trialrun's (async `generate_full(prompt, **params)`) or the seed's (sync
`generate_full(prompt, *, model, system, temperature, max_tokens)` → {content, usage,
latency_seconds, cost_usd}), so an OpenJarvis backend object runs unchanged. In-process
only: worker processes and Ray cannot see the object.
"""

from __future__ import annotations

import inspect
import re
import time
from typing import Any

from trialrun.core import run_sync
from trialrun.errors import UserError
from trialrun.models import (
    MODEL_PROVIDERS,
    Completion,
    CompletionParams,
    Usage,
    model_provider,
)

PROVIDER = "inference-backend"
DEFAULT_MAX_TOKENS = 2048  # the seed's default
_LIVE: dict[str, tuple[Any, str]] = {}


def backend_spec(backend: Any, model: str) -> str:
    """The model spec that runs `backend` as `model` (kept until the process ends). The
    key is stable across processes for the same backend class and model, so a rerun
    resumes the same run folder."""
    if not callable(getattr(backend, "generate_full", None)):
        raise UserError(
            f"backend {type(backend).__name__}: not an InferenceBackend (it needs "
            "generate_full(prompt, …)); pass one, or a backend name (direct, agent)"
        )
    if PROVIDER not in MODEL_PROVIDERS:  # registered on first use: not a provider to list
        model_provider(PROVIDER)(BackendModel)
    base = re.sub(r"[^A-Za-z0-9._-]", "-", f"{type(backend).__name__}-{model}")
    key, number = base, 1
    while key in _LIVE and _LIVE[key][0] is not backend:
        number += 1
        key = f"{base}-{number}"
    _LIVE[key] = (backend, model)
    return f"{PROVIDER}:{key}"


def _usage(raw: Any) -> Usage:
    """{prompt, completion} (trialrun) or {prompt_tokens, completion_tokens} (the seed)."""
    if not isinstance(raw, dict):
        return Usage()

    def count(*names: str) -> int:
        value = next((raw[n] for n in names if isinstance(raw.get(n), int)), 0)
        return max(0, int(value))

    return Usage(
        prompt=count("prompt", "prompt_tokens", "input_tokens"),
        completion=count("completion", "completion_tokens", "output_tokens"),
    )


class BackendModel:
    """A Model over a live InferenceBackend object: one prompt in, its reply out."""

    provider = PROVIDER

    def __init__(self, model_id: str, options: dict[str, Any]) -> None:
        if model_id not in _LIVE:
            raise UserError(
                "no such backend object in this process "
                "(pass the object to run_benchmark or EvalRunner; worker processes cannot "
                "see it)",
                place="--model", value=f"{PROVIDER}:{model_id}",
            )
        self.model_id = model_id
        self.backend, self.model = _LIVE[model_id]

    async def complete(
        self, messages: list[dict[str, Any]], tools: list[Any], params: CompletionParams
    ) -> Completion:
        system = "\n\n".join(str(m.get("content") or "") for m in messages if m["role"] == "system")
        users = [str(m.get("content") or "") for m in messages if m["role"] == "user"]
        kwargs = {
            "model": self.model,
            "system": system,
            "temperature": params.temperature if params.temperature is not None else 0.0,
            "max_tokens": params.max_tokens or DEFAULT_MAX_TOKENS,
        }
        started = time.perf_counter()
        call = self.backend.generate_full
        if inspect.iscoroutinefunction(call):
            full = await call(users[-1] if users else "", **kwargs)
        else:
            full = await run_sync(call, users[-1] if users else "", **kwargs)
            if inspect.isawaitable(full):
                full = await full
        full = full if isinstance(full, dict) else {"content": full}
        cost = full.get("cost_usd")
        return Completion(
            text=str(full.get("content") or ""),
            usage=_usage(full.get("usage")),
            latency_s=time.perf_counter() - started,
            cost_usd=float(cost) if isinstance(cost, int | float) else None,
        )

    async def aclose(self) -> None:
        """The caller owns the backend (it closes it)."""

