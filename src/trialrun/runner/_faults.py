"""Fault injection: a Toolbox whose named tools fail (always, or on call number `on_call`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trialrun.core import ToolSpec
from trialrun.tools import Tool, Toolbox, ToolResult

if TYPE_CHECKING:
    from trialrun.tasks import Fault


class FaultyToolbox(Toolbox):
    """Wraps a toolbox: a faulted tool returns an error result instead of running.

    Every public method delegates to the wrapped toolbox (its tools and specs are not
    rebuilt on the per-trial path).
    """

    def __init__(self, inner: Toolbox, faults: list[Fault]) -> None:
        self.ctx = inner.ctx
        self._inner = inner
        self._faults = faults
        self._counts: dict[str, int] = {}

    @property
    def names(self) -> list[str]:
        return self._inner.names

    def specs(self) -> list[ToolSpec]:
        return self._inner.specs()

    def get(self, name: str) -> Tool | None:
        return self._inner.get(name)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        count = self._counts.get(name, 0) + 1
        self._counts[name] = count
        for fault in self._faults:
            if fault.tool == name and (fault.on_call is None or fault.on_call == count):
                return ToolResult(False, fault.error)
        return await self._inner.call(name, arguments)
