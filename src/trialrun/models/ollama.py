"""`ollama:MODEL` — Ollama's OpenAI-compatible /v1 endpoint at OLLAMA_HOST.

Before the first call of a run, other resident models are unloaded (`/api/ps`, then
`/api/generate` with `keep_alive: 0`) so they do not compete for memory and CPU, and one
warm-up call loads the model; neither is counted in any trial's timings or tokens.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from trialrun.core import redact
from trialrun.errors import InfraError, UserError
from trialrun.models._body import ResponseTooLarge, parse_json
from trialrun.models._http import read_capped
from trialrun.models._registry import model_provider
from trialrun.models._types import Completion, CompletionParams, Message, ToolSpec
from trialrun.models.openai_compat import OpenAICompatModel

DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_host() -> str:
    host = os.environ.get("OLLAMA_HOST", "").strip() or DEFAULT_HOST
    if "://" not in host:
        host = "http://" + host
    return host.rstrip("/")


class OllamaModel(OpenAICompatModel):
    def __init__(self, model_id: str, options: dict[str, Any]) -> None:
        self.host = str(options.get("host") or ollama_host())
        super().__init__(
            "ollama",
            model_id,
            model_name=model_id,
            base_url=f"{self.host}/v1",
            api_key=os.environ.get("OLLAMA_API_KEY") or "ollama",
            key_variable="OLLAMA_API_KEY",
            options=options,
        )
        self.warm_up = bool(options.get("warm_up", True))
        self._ready = False
        self._prepare_lock: asyncio.Lock | None = None
        self.unloaded: list[str] = []

    async def prepare(self) -> None:
        """Unload other resident models, then warm this one up (once per run)."""
        if self._ready:
            return
        if self._prepare_lock is None:
            self._prepare_lock = asyncio.Lock()
        async with self._prepare_lock:
            if self._ready:
                return
            await self._unload_others()
            if self.warm_up:
                params = CompletionParams(max_tokens=1, temperature=0.0)
                await OpenAICompatModel.complete(
                    self, [{"role": "user", "content": "hi"}], [], params
                )
            self._ready = True

    async def _unload_others(self) -> None:
        # loaded on first request: it also loads rich, click and pygments (~95 ms, ~8 MiB)
        import httpx

        try:
            async with httpx.AsyncClient(base_url=self.host, timeout=30.0) as client:
                async with client.stream("GET", "/api/ps") as response:
                    response.raise_for_status()
                    listing = parse_json(await read_capped(response, self._http.max_body))
                for name in _resident(listing):
                    if name in (self.model_name, f"{self.model_name}:latest"):
                        continue
                    unload = {"model": name, "keep_alive": 0}
                    async with client.stream("POST", "/api/generate", json=unload):
                        pass  # its answer is not read
                    self.unloaded.append(name)
        except (httpx.HTTPError, ValueError, ResponseTooLarge) as exc:
            raise InfraError(
                redact(
                    f"ollama at {self.host} is not reachable ({type(exc).__name__}: {exc}); "
                    "start it with `ollama serve` or set OLLAMA_HOST"
                )
            ) from None

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], params: CompletionParams
    ) -> Completion:
        await self.prepare()
        return await super().complete(messages, tools, params)


def _resident(listing: Any) -> list[str]:
    """The model names in an `/api/ps` answer (ValueError when it is not one)."""
    models = listing.get("models", []) if isinstance(listing, dict) else None
    if not isinstance(models, list):
        raise ValueError(f"/api/ps answered {str(listing)[:100]!r}, not a model list")
    names = [m.get("name") or m.get("model") for m in models if isinstance(m, dict)]
    return [name for name in names if isinstance(name, str) and name]


@model_provider("ollama")
def ollama_provider(model_id: str, options: dict[str, Any]) -> OllamaModel:
    if not model_id:
        raise UserError("name a model, e.g. ollama:qwen2.5:0.5b", place="--model", value="ollama")
    return OllamaModel(model_id, options)
