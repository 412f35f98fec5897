"""A Toolbox wrapper that notes when the agent made its first tool call."""

from __future__ import annotations

import time
from typing import Any

from trialrun.runner._delegating import DelegatingToolbox
from trialrun.tools import Toolbox, ToolResult


class FirstCallClock(DelegatingToolbox):
    """Delegates every call; `first_at` is the perf_counter time of the first one."""

    def __init__(self, inner: Toolbox) -> None:
        super().__init__(inner)
        self.first_at: float | None = None

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if self.first_at is None:
            self.first_at = time.perf_counter()
        return await self._inner.call(name, arguments)

    def since(self, started: float) -> float | None:
        """Seconds from `started` to the first call (None: no call was made)."""
        return None if self.first_at is None else round(max(0.0, self.first_at - started), 6)
