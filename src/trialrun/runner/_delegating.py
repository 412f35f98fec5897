"""A Toolbox that hands every call to the one it wraps: the base of the runner's wrappers."""

from __future__ import annotations

from typing import Any

from trialrun.core import ToolSpec
from trialrun.tools import Tool, Toolbox, ToolResult


class DelegatingToolbox(Toolbox):
    """Every public method delegates to `inner` (its tools and specs are not rebuilt on the
    per-trial path); a subclass overrides `call` to watch or change what happens."""

    def __init__(self, inner: Toolbox) -> None:
        self.ctx = inner.ctx
        self.call_timeout_s = inner.call_timeout_s
        self._inner = inner

    @property
    def names(self) -> list[str]:
        return self._inner.names

    def specs(self) -> list[ToolSpec]:
        return self._inner.specs()

    def get(self, name: str) -> Tool | None:
        return self._inner.get(name)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        return await self._inner.call(name, arguments)
