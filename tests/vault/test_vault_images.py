"""generate_image, offline: a placeholder PNG carrying the prompt, where Scribe would save
the image; Scribe's result fields; Scribe's refusals."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.tools import ToolResult
from trialrun.tools.vault._images import placeholder_png

Call = Callable[..., ToolResult]
PROMPT = "A watercolour lighthouse at dusk"


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(data):
        (size,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + size]
        (crc,) = struct.unpack(">I", data[at + 8 + size : at + 12 + size])
        assert crc == zlib.crc32(kind + body)
        out.append((kind, body))
        at += 12 + size
    return out


@settings(max_examples=50, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1))
def test_placeholder_is_a_valid_png_holding_the_prompt(prompt: str) -> None:
    chunks = _chunks(placeholder_png(prompt))
    assert [k for k, _ in chunks] == [b"IHDR", b"iTXt", b"IDAT", b"IEND"]
    assert struct.unpack(">II", chunks[0][1][:8]) == (1, 1)
    assert chunks[1][1] == b"Description\x00\x00\x00\x00\x00" + prompt.encode("utf-8")
    assert zlib.decompress(chunks[2][1]) == b"\x00\x80"


def test_explicit_path_is_made_png_and_returned_with_a_wikilink(call: Call, vault: Path) -> None:
    out = call("generate_image", prompt=f"  {PROMPT} ", output_path="attachments/lighthouse.jpg")
    assert out.ok, out.content
    assert json.loads(out.content) == {
        "path": "attachments/lighthouse.png",
        "prompt": PROMPT,
        "wikilink": "![[attachments/lighthouse.png]]",
    }
    data = (vault / "attachments" / "lighthouse.png").read_bytes()
    assert data == placeholder_png(PROMPT)
    again = call("generate_image", prompt=PROMPT, output_path="attachments/lighthouse")
    assert (again.ok, again.content) == (
        False,
        "generate_image: 'attachments/lighthouse.png' already exists; choose another output_path",
    )


def test_default_path_is_in_background_tasks_and_the_same_for_the_same_prompt(
    call: Call, tmp_path: Path, vault: Path
) -> None:
    first = json.loads(call("generate_image", prompt=PROMPT).content)["path"]
    second = json.loads(call("generate_image", prompt=PROMPT).content)["path"]
    assert first.startswith("gemini-scribe/Background-Tasks/generated-A-watercolour-lighthouse-at")
    assert first.endswith(".png") and second == first[: -len(".png")] + "-2.png"
    assert (vault / first).is_file() and (vault / second).is_file()
    background = json.loads(call("generate_image", prompt="a map", background=True).content)
    assert set(background) == {"taskId", "output_path"}
    assert background["taskId"].startswith("image-")
    assert (vault / background["output_path"]).read_bytes() == placeholder_png("a map")


def test_refusals_name_the_problem(call: Call, vault: Path) -> None:
    cases = {
        ("", None): "generate_image: prompt must be non-empty text describing the image",
        (PROMPT, "attachments/"): "generate_image: output_path must include a file name, e.g. "
        "'attachments/picture.png' (got 'attachments/')",
        (PROMPT, ".obsidian/x.png"): "generate_image: refused: '.obsidian/x.png' is inside "
        ".obsidian/",
        (PROMPT, "a/../gemini-scribe/AGENTS"): "generate_image: refused: "
        "'a/../gemini-scribe/AGENTS' is inside the plugin's state folder gemini-scribe/ "
        "(only gemini-scribe/Background-Tasks/ may hold images)",
        (PROMPT, "../x.png"): "generate_image: refused: '../x.png' is outside the vault",
        (PROMPT, "todo.md/x.png"): "generate_image: 'todo.md' is a file, not a folder",
    }
    for (prompt, path), message in cases.items():
        args = {"prompt": prompt} | ({"output_path": path} if path else {})
        out = call("generate_image", **args)
        assert (out.ok, out.content) == (False, message), path
    ok = call("generate_image", prompt=PROMPT, output_path="gemini-scribe/Background-Tasks/x")
    assert ok.ok and json.loads(ok.content)["path"] == "gemini-scribe/Background-Tasks/x.png"
    assert not (vault / "gemini-scribe" / "AGENTS.png").exists()
