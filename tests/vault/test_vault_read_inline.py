"""`read_file` reads a small regular file on the event loop; anything else on a thread.

Issue 30: handing a synchronous tool to a daemon thread costs ~25 context switches on a
busy loop, more than reading a small file. An `inline` tool's body runs on the loop's
thread; `read_file` is one, and falls back to a daemon thread (within the tool time limit,
as before) for a large file or one that is not a regular file (a fifo, whose open would
block). Which thread opened the file is read from Python's `open` audit event.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.core import run_sync
from trialrun.tools import ToolContext, ToolError, ToolResult, load_pack, tool
from trialrun.tools.vault._common import MAX_READ_CHARS, read_small_file
from trialrun.tools.vault._files import INLINE_READ_BYTES, _file_text, _read_text_file

pytestmark = pytest.mark.timeout(60)

OPENED: list[tuple[str, int]] = []  # (file name, thread id) of watched opens
WATCH = "inline-watch-"


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and args and isinstance(args[0], str | bytes | os.PathLike):
        name = os.path.basename(os.fsdecode(args[0]))
        if name.startswith(WATCH):
            OPENED.append((name, threading.get_ident()))


sys.addaudithook(_audit)

[READ] = [t for t in load_pack("vault") if t.name == "read_file"]


async def _read(vault: Path, path: str, timeout_s: float = 30) -> tuple[ToolResult, int]:
    result = await READ.call(ToolContext(vault), {"path": path}, timeout_s)
    return result, threading.get_ident()


def _threads(name: str) -> set[int]:
    return {tid for seen, tid in OPENED if seen == name}


@tool(inline=True)
def where_inline(ctx: ToolContext) -> str:
    """Name the thread the body runs on."""
    return str(threading.get_ident())


@tool
def where_threaded(ctx: ToolContext) -> str:
    """Name the thread the body runs on."""
    return str(threading.get_ident())


@tool(inline=True)
def deferred(ctx: ToolContext) -> object:
    """An inline body that hands its work to a thread: the awaitable it returns."""
    return run_sync(lambda: "from a thread")


def test_an_inline_tool_runs_on_the_loop_a_plain_one_on_a_thread(tmp_path: Path) -> None:
    async def main() -> tuple[str, str, str, int]:
        ctx = ToolContext(tmp_path)
        inline = await where_inline.call(ctx, {})
        threaded = await where_threaded.call(ctx, {})
        later = await deferred.call(ctx, {})
        return inline.content, threaded.content, later.content, threading.get_ident()

    inline, threaded, later, loop = asyncio.run(main())
    assert int(inline) == loop and int(threaded) != loop
    assert later == "from a thread"


def test_a_small_file_is_read_on_the_loop(tmp_path: Path) -> None:
    (tmp_path / f"{WATCH}small.md").write_text("hello\n", encoding="utf-8")
    OPENED.clear()
    result, loop = asyncio.run(_read(tmp_path, f"{WATCH}small.md"))
    assert (result.ok, result.content) == (True, "hello\n")
    assert _threads(f"{WATCH}small.md") == {loop}


def test_a_large_file_is_read_on_a_thread_and_cut_as_before(tmp_path: Path) -> None:
    text = "x" * (INLINE_READ_BYTES + 10)
    (tmp_path / f"{WATCH}large.md").write_text(text, encoding="utf-8")
    OPENED.clear()
    result, loop = asyncio.run(_read(tmp_path, f"{WATCH}large.md"))
    cut = len(text) - MAX_READ_CHARS
    assert result.ok and result.content == (
        text[:MAX_READ_CHARS] + f"\n[... truncated {cut} more characters]")
    # looked at on the loop (open, fstat: never blocking), read on a daemon thread
    assert _threads(f"{WATCH}large.md") - {loop}


def test_a_small_binary_file_is_refused_as_before(tmp_path: Path) -> None:
    (tmp_path / f"{WATCH}bin.md").write_bytes(b"\x89PNG\x00\x01")
    result, _ = asyncio.run(_read(tmp_path, f"{WATCH}bin.md"))
    assert (result.ok, result.content) == (
        False, f"read_file: '{WATCH}bin.md' is a binary file (6 bytes)")


def test_a_fifo_never_blocks_the_loop(tmp_path: Path) -> None:
    """Opening a fifo for reading blocks until a writer comes: the read goes to a daemon
    thread, and the call ends at the tool time limit while the loop keeps running."""
    fifo = tmp_path / f"{WATCH}pipe.md"
    os.mkfifo(fifo)

    async def main() -> tuple[ToolResult, int]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        result, _ = await _read(tmp_path, fifo.name, timeout_s=0.5)
        ticker.cancel()
        return result, ticks

    try:
        result, ticks = asyncio.run(main())
    finally:  # let the abandoned thread's open return
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    assert not result.ok and "no result within 0.5s" in result.content
    assert ticks > 0  # the loop ran while the read waited


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=3000) | st.text(max_size=1500).map(str.encode))
def test_the_inline_read_answers_as_the_threaded_read(tmp_path: Path, data: bytes) -> None:
    """Whatever the bytes (text, binary, non-UTF-8, empty), reading on the loop gives the
    answer the daemon-thread read gives."""
    target = tmp_path / "any.md"
    target.write_bytes(data)

    def answer(read: Callable[[], str]) -> tuple[bool, str]:
        try:
            return True, read()
        except ToolError as exc:
            return False, str(exc)

    ctx = ToolContext(tmp_path)
    small = read_small_file(target, INLINE_READ_BYTES)
    assert small == data
    inline = answer(lambda: _file_text(ctx, "any.md", target, small))
    threaded = answer(lambda: _read_text_file(ctx, "any.md", target))
    assert inline == threaded
    result, _ = asyncio.run(_read(tmp_path, "any.md"))
    assert (result.ok, result.content) == inline
