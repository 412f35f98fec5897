"""Helpers for the wire-API proxy tests: a scripted model behind a real RecordingProxy,
and a reader for the server-sent events it answers with."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from trialrun.agents._proxy import RecordingProxy
from trialrun.models import create_model

WRITE = {"name": "write_file", "arguments": {"path": "todo.md", "content": "buy milk\n"}}


def write_then_answer() -> list[dict[str, Any]]:
    """A two-turn script: call write_file, then answer."""
    return [
        {"tool_calls": [WRITE], "usage": {"prompt": 30, "cached": 10, "completion": 9}},
        {"content": "Wrote todo.md.", "usage": {"prompt": 50, "cached": 0, "completion": 4}},
    ]


def behind_proxy(
    tmp_path: Path,
    turns: list[dict[str, Any]],
    client: Callable[[RecordingProxy], Awaitable[Any]],
) -> tuple[Any, RecordingProxy]:
    """Runs `await client(proxy)` against a proxy whose scripted model plays `turns` for
    task `t1`; returns (the client's result, the proxy)."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"tasks": {"t1": turns}}))

    async def main() -> tuple[Any, RecordingProxy]:
        model = create_model(f"scripted:{script}")
        async with RecordingProxy(model, task_id="t1") as proxy:
            return await asyncio.wait_for(client(proxy), 60), proxy

    return asyncio.run(main())


def sse_events(body: str) -> list[tuple[str | None, Any]]:
    """(event name, parsed data) of each server-sent event; `[DONE]` stays a string."""
    events = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            text = "\n".join(data)
            events.append((name, text if text == "[DONE]" else json.loads(text)))
    return events
