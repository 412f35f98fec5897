"""The `image_generate` tool pack: an image from a text description, through a pluggable
provider (`_image_providers`).

The provider comes from the pack's options in a task (`{image_generate: {provider:
openai, url: "http://HOST:PORT/v1", model: "…", api_key_env: "…"}}`) or else from
trialrun.toml (`[tools.image_generate]`, the same keys, given in the run's
`ToolSettings`). With none configured each call
is a tool error the agent sees, never a refused suite. The parameters are OpenJarvis's:
`prompt`, `size`, `output_path` (inside the workspace, by file_write's rules), `provider`
(when given, it must be the configured one).
"""

from __future__ import annotations

import os
from typing import Any

from trialrun.core import FileRefused, open_fd
from trialrun.errors import ToolError, UserError
from trialrun.sandbox import resolve_inside
from trialrun.tools._image_providers import IMAGE_PROVIDERS, GeneratedImage, ImageProvider
from trialrun.tools._settings import IMAGE_GENERATE_KEYS, ToolSettings, provider_problem
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import configured_tool_pack

SIZES = ("256x256", "512x512", "1024x1024")
SETTINGS = IMAGE_GENERATE_KEYS
_NO_PROVIDER = (
    "image_generate: no provider configured; set [tools.image_generate] provider = "
    '"openai" and url = "http://HOST:PORT/v1" (an OpenAI-compatible images API) in '
    "trialrun.toml"
)


def settings_of(options: dict[str, Any], settings: ToolSettings) -> dict[str, Any]:
    """The task's options when they name a provider, else trialrun.toml's table."""
    if options.get("provider") is not None:
        return options
    return settings.image_generate


def provider_of(settings: dict[str, Any], asked: str | None) -> ImageProvider:
    name = settings.get("provider")
    if name is None:
        raise ToolError(_NO_PROVIDER)
    factory = IMAGE_PROVIDERS.get(name) if isinstance(name, str) else None
    if factory is None:
        raise ToolError(
            f"image_generate: unknown provider {name!r} in [tools.image_generate]; known: "
            f"{', '.join(IMAGE_PROVIDERS.names())}"
        )
    if asked is not None and asked != name:
        raise ToolError(f"image_generate: provider {asked!r} is not configured; use {name!r}")
    return factory(settings)


def save(ctx: ToolContext, output_path: str, image: GeneratedImage) -> str:
    if image.data is None:
        raise ToolError(
            "image_generate: the provider gave a URL, not the image bytes; it is at "
            f"{image.url}"
        )
    try:
        target = resolve_inside(
            ctx.workspace, output_path, allow_root=False, root_name="the workspace"
        )
    except ToolError as exc:
        raise ToolError(f"image_generate: output_path: {exc}") from None
    if not target.parent.is_dir():
        raise ToolError(f"image_generate: the folder of {output_path!r} does not exist")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        fd = open_fd(target, flags, follow_symlinks=False, fix="write a regular file")
    except (FileRefused, OSError) as exc:
        raise ToolError(f"image_generate: cannot write {output_path!r}: {exc}") from None
    with os.fdopen(fd, "wb") as handle:
        handle.write(image.data)
    return f"Image saved to {output_path} ({len(image.data)} bytes)."


def build(settings: dict[str, Any]) -> Tool:
    async def image_generate(
        ctx: ToolContext,
        prompt: str,
        size: str = "1024x1024",
        output_path: str | None = None,
        provider: str | None = None,
    ) -> str:
        """Generate an image from a text description. Returns the image URL or saved path.

        Args:
            prompt: Text description of the image to generate.
            size: Image size: '256x256', '512x512', or '1024x1024'. Default '1024x1024'.
            output_path: Optional file path (in the working folder) to save the image to.
            provider: Image generation provider. Default: the configured one.
        """
        if not isinstance(prompt, str) or not prompt.strip():
            raise ToolError("image_generate: the prompt is empty; describe the image")
        if size not in SIZES:
            raise ToolError(f"image_generate: size must be one of {', '.join(SIZES)}")
        image = await provider_of(settings, provider).generate(prompt.strip(), size)
        if output_path:
            return save(ctx, output_path, image)
        if image.url:
            return f"Image generated: {image.url}"
        size_bytes = len(image.data or b"")
        return f"Image generated ({size_bytes} bytes); give output_path to save it."

    made = tool(image_generate, name="image_generate")
    assert isinstance(made, Tool)
    return made


def check_options(options: dict[str, Any]) -> None:
    problem = provider_problem(options, SETTINGS, IMAGE_PROVIDERS)
    if problem is not None:
        raise UserError(f"tool pack image_generate: {problem}")


@configured_tool_pack("image_generate", check_options)
def image_generate_pack(options: dict[str, Any], settings: ToolSettings) -> list[Tool]:
    return [build(settings_of(options, settings))]
