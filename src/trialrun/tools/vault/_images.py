"""`generate_image`, offline: the request is recorded, no image model is called.

Scribe saves a generated PNG at `output_path` (its extension made `.png`) or, by default,
under `<state folder>/Background-Tasks/`, and returns the path and an embed wikilink.
Here the file written at that path is a 1×1 placeholder PNG whose `Description` text
chunk holds the prompt, so graders can check both that an image was made where the task
wanted it (`fileExists`) and what was asked for (`fileContains` on the prompt's words).
Default names are built from the prompt and its hash (Scribe adds a clock time and a
random suffix): the same calls give the same files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import zlib

from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import inside, rel, root_of
from trialrun.tools.vault._state_folder import IMAGES_FOLDER, STATE_FOLDER

CONFIG_FOLDER = ".obsidian"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def placeholder_png(prompt: str) -> bytes:
    """A valid 1×1 grey PNG carrying `prompt` in an iTXt `Description` chunk (UTF-8)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1×1, 8-bit greyscale
    text = b"Description\x00\x00\x00\x00\x00" + prompt.encode("utf-8")
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"iTXt", text)
        + _chunk(b"IDAT", zlib.compress(b"\x00\x80"))
        + _chunk(b"IEND", b"")
    )


def _as_png(path: str) -> str:
    folder, _, name = path.rpartition("/")
    stem = name[: name.rindex(".")] if "." in name[1:] else name
    return f"{folder}/{stem}.png" if folder else f"{stem}.png"


def _explicit_path(ctx: ToolContext, output_path: str) -> str:
    """Scribe's checks on a chosen path: a file name, inside the vault, not in the
    config folder nor in the state folder outside its images folder; made `.png`."""
    if output_path.strip().endswith("/") or not output_path.strip("/ ."):
        raise ToolError(
            f"generate_image: output_path must include a file name, e.g. "
            f"'attachments/picture.png' (got {output_path!r})"
        )
    target = inside("generate_image", ctx, output_path.strip(), allow_root=False)
    path = _as_png(rel(ctx, target))
    top = path.split("/", 1)[0]
    if top == CONFIG_FOLDER:
        raise ToolError(f"generate_image: refused: {output_path!r} is inside {CONFIG_FOLDER}/")
    if top == STATE_FOLDER and not path.startswith(IMAGES_FOLDER + "/"):
        raise ToolError(
            f"generate_image: refused: {output_path!r} is inside the plugin's state folder "
            f"{STATE_FOLDER}/ (only {IMAGES_FOLDER}/ may hold images)"
        )
    return path


def _default_path(ctx: ToolContext, prompt: str) -> str:
    words = _UNSAFE.sub("-", prompt[:50]).strip("-") or "image"
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:8]
    base = f"{IMAGES_FOLDER}/generated-{words}-{digest}"
    path, n = f"{base}.png", 1
    while os.path.lexists(inside("generate_image", ctx, path, allow_root=False)):
        n += 1
        path = f"{base}-{n}.png"
    return path


@tool
def generate_image(
    ctx: ToolContext, prompt: str, output_path: str | None = None, background: bool = False
) -> str:
    """Generate an image from a text prompt and save it in the vault.

    Returns the image's path and the wikilink that embeds it. It does NOT insert the image
    into any note: to show it in a note, write the returned wikilink into the note.

    Args:
        prompt: Detailed description of the image to generate.
        output_path: Optional vault path for the image, e.g. "attachments/my-image.png"
            (saved as .png). By default it goes to gemini-scribe/Background-Tasks/.
        background: Submit as a background task and return at once with its taskId and
            the output_path where the image will be saved (default false).
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise ToolError("generate_image: prompt must be non-empty text describing the image")
    prompt = prompt.strip()
    path = _explicit_path(ctx, output_path) if output_path else _default_path(ctx, prompt)
    target = inside("generate_image", ctx, path, allow_root=False)
    if os.path.lexists(target):
        raise ToolError(
            f"generate_image: {rel(ctx, target)!r} already exists; choose another output_path"
        )
    root = root_of(ctx)
    for parent in reversed(target.relative_to(root).parents):
        if (root / parent).exists() and not (root / parent).is_dir():
            raise ToolError(f"generate_image: {parent.as_posix()!r} is a file, not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(placeholder_png(prompt))
    shown = rel(ctx, target)
    if background:
        task_id = "image-" + hashlib.sha256(shown.encode("utf-8")).hexdigest()[:12]
        return json.dumps({"taskId": task_id, "output_path": shown}, ensure_ascii=False)
    return json.dumps(
        {"path": shown, "prompt": prompt, "wikilink": f"![[{shown}]]"}, ensure_ascii=False
    )
