"""The `pdf_extract` tool pack: the text of a PDF inside the trial's workspace.

The path follows the workspace rules of `resolve_inside` and the file must be a regular
file (`open_fd`, never a FIFO or a device; at most 50 MiB). Text comes from pypdf (the
`openjarvis` extra; without it each call is a tool error naming `pip install pypdf`).
The parameters are OpenJarvis's: `file_path`, `pages` ("1-5" or "1,3,5", 1-based; all
when omitted), `max_chars` (default 50,000).
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

from trialrun.core import FileRefused, open_fd
from trialrun.errors import ToolError
from trialrun.sandbox import resolve_inside
from trialrun.tools._options import no_options
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import tool_pack

MAX_PDF_BYTES = 50 * 1024 * 1024
DEFAULT_MAX_CHARS = 50_000
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def page_numbers(pages: str, count: int) -> list[int]:
    """0-based page indexes of a 1-based spec like "1-3,5"; a ToolError when malformed or
    out of the document's `count` pages."""
    wanted: list[int] = []
    for part in pages.split(","):
        match = _RANGE.match(part)
        if not match:
            raise ToolError(f"pdf_extract: pages {pages!r} is no page range; write e.g. '1-5' "
                            "or '1,3,5'")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if not 1 <= first <= last <= count:
            raise ToolError(f"pdf_extract: pages {part.strip()!r} is outside 1-{count} "
                            f"(the document has {count} pages)")
        wanted.extend(n for n in range(first - 1, last) if n not in wanted)
    return wanted


def _read(ctx: ToolContext, file_path: str) -> bytes:
    if not isinstance(file_path, str) or not file_path.strip():
        raise ToolError("pdf_extract: a file path is required (e.g. 'docs/report.pdf')")
    try:
        target = resolve_inside(
            ctx.workspace, file_path, allow_root=False, root_name="the workspace"
        )
    except ToolError as exc:
        raise ToolError(f"pdf_extract: {exc}") from None
    try:
        fd = open_fd(target, limit=MAX_PDF_BYTES, fix="give a PDF file")
    except FileRefused as exc:  # named by the agent's path, not the absolute one
        raise ToolError(f"pdf_extract: {file_path!r}: {exc.problem}") from None
    except OSError as exc:
        raise ToolError(f"pdf_extract: cannot read {file_path!r}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


@tool
def pdf_extract(
    ctx: ToolContext, file_path: str, pages: str | None = None, max_chars: int | None = None
) -> str:
    """Extract text from a PDF file. Returns the extracted text content.

    Args:
        file_path: Path to the PDF file, relative to the working folder.
        pages: Page range to extract, e.g. '1-5' or '1,3,5'. Omit to extract all pages.
        max_chars: Maximum characters to return. Default 50000.
    """
    limit = DEFAULT_MAX_CHARS if max_chars is None else max_chars
    if limit < 1:
        raise ToolError("pdf_extract: max_chars must be at least 1")
    try:
        from pypdf import PdfReader  # the optional SDK, loaded on first use
        from pypdf.errors import PdfReadError
    except ImportError:
        raise ToolError(
            "pdf_extract: pypdf is not installed; pip install pypdf "
            "(or pip install 'trialrun[openjarvis]')"
        ) from None
    data = _read(ctx, file_path)
    try:
        reader = PdfReader(io.BytesIO(data))
        count = len(reader.pages)
        indexes = page_numbers(pages, count) if pages else list(range(count))
        texts = [f"--- page {i + 1} ---\n{reader.pages[i].extract_text().strip()}"
                 for i in indexes]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise ToolError(f"pdf_extract: {file_path!r} is no readable PDF ({exc})") from None
    text = "\n\n".join(texts)
    if len(text) > limit:
        text = text[:limit] + f"\n\n[text cut at {limit} characters]"
    return text


@tool_pack("pdf_extract", no_options("pdf_extract"))
def pdf_extract_pack(options: dict[str, Any]) -> list[Tool]:
    return [pdf_extract]
