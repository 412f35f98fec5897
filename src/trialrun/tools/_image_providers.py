"""Image providers for the `image_generate` tool: a protocol and a registry.

A provider is made from its settings (the `[tools.image_generate]` table of
trialrun.toml, or the pack's options in a task) and answers `generate(prompt, size)`
with an image: its bytes, its URL, or both. Third parties register through the
`trialrun.image_providers` entry point group. Built in: `openai`, any OpenAI-compatible
images endpoint (`POST URL/images/generations` with `{model, prompt, size, n: 1}`,
answering `{"data": [{"b64_json": …} or {"url": …}]}`), the key read from the
environment variable `api_key_env` names (none sent without it).
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from trialrun.core import Registry
from trialrun.errors import ToolError

DEFAULT_IMAGE_TIMEOUT_S = 120.0
MAX_IMAGE_RESPONSE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class GeneratedImage:
    data: bytes | None
    url: str


class ImageProvider(Protocol):
    async def generate(self, prompt: str, size: str) -> GeneratedImage: ...


ImageProviderFactory = Callable[[dict[str, Any]], ImageProvider]

IMAGE_PROVIDERS: Registry[ImageProviderFactory] = Registry(
    "image provider", "trialrun.image_providers", builtin_modules=()
)


@dataclass(frozen=True, slots=True)
class OpenAIImages:
    """An OpenAI-compatible `/images/generations` endpoint."""

    base_url: str
    model: str
    api_key: str
    timeout_s: float = DEFAULT_IMAGE_TIMEOUT_S

    async def generate(self, prompt: str, size: str) -> GeneratedImage:
        import httpx  # loaded on first use: it also loads rich, click and pygments (~8 MiB)
        url = self.base_url.rstrip("/") + "/images/generations"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload = {"model": self.model, "prompt": prompt, "size": size, "n": 1}
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.post(url, json=payload, headers=headers)
        except httpx.HTTPError as exc:
            raise ToolError(
                f"image_generate: the images endpoint {url} did not answer "
                f"({type(exc).__name__}: {exc})"
            ) from None
        if response.status_code != 200:
            raise ToolError(
                f"image_generate: the images endpoint {url} answered HTTP "
                f"{response.status_code}: {response.text[:200]}"
            )
        if len(response.content) > MAX_IMAGE_RESPONSE_BYTES:
            raise ToolError(f"image_generate: the answer of {url} is too large")
        try:
            first = response.json()["data"][0]
            encoded, link = first.get("b64_json"), first.get("url")
            data = base64.b64decode(encoded, validate=True) if encoded else None
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, binascii.Error):
            raise ToolError(
                f"image_generate: the answer of {url} has no data[0].b64_json or data[0].url"
            ) from None
        if data is None and not isinstance(link, str):
            raise ToolError(f"image_generate: the answer of {url} holds no image")
        return GeneratedImage(data, link if isinstance(link, str) else "")


def openai(settings: dict[str, Any]) -> ImageProvider:
    url = settings.get("url", "https://api.openai.com/v1")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ToolError(
            'image_generate: provider "openai" needs url = "http://HOST:PORT/v1" (the base '
            "of an OpenAI-compatible API) in [tools.image_generate]"
        )
    key_env = settings.get("api_key_env")
    key = os.environ.get(key_env, "") if isinstance(key_env, str) else ""
    if isinstance(key_env, str) and not key:
        raise ToolError(f"image_generate: the environment variable {key_env} is not set")
    model = settings.get("model", "gpt-image-1")
    timeout = settings.get("timeout_s", DEFAULT_IMAGE_TIMEOUT_S)
    return OpenAIImages(url, str(model), key, float(timeout))


IMAGE_PROVIDERS.add("openai", openai)
