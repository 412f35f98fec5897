"""A Toolbox wrapper that notes when the agent made its first tool call."""

from __future__ import annotations

import time
from typing import Any

from trialrun.core import ToolSpec
from trialrun.tools import Tool, Toolbox, ToolResult


class FirstCallClock(Toolbox):
    """Delegates every call; `first_at` is the perf_counter time of the first one."""

    def __init__(self, inner: Toolbox) -> None:
        self.ctx = inner.ctx
        self.call_timeout_s = getattr(inner, "call_timeout_s", None)
        self._inner = inner
        self.first_at: float | None = None

    @property
    def names(self) -> list[str]:
        return self._inner.names

    def specs(self) -> list[ToolSpec]:
        return self._inner.specs()

    def get(self, name: str) -> Tool | None:
        return self._inner.get(name)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if self.first_at is None:
            self.first_at = time.perf_counter()
        return await self._inner.call(name, arguments)

    def since(self, started: float) -> float | None:
        """Seconds from `started` to the first call (None: no call was made)."""
        return None if self.first_at is None else round(max(0.0, self.first_at - started), 6)
