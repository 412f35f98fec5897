"""Fault injection: a Toolbox whose named tools fail (always, or on call number `on_call`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trialrun.runner._delegating import DelegatingToolbox
from trialrun.tools import Toolbox, ToolResult

if TYPE_CHECKING:
    from trialrun.tasks import Fault


class FaultyToolbox(DelegatingToolbox):
    """Wraps a toolbox: a faulted tool returns an error result instead of running."""

    def __init__(self, inner: Toolbox, faults: list[Fault]) -> None:
        super().__init__(inner)
        self._faults = faults
        self._counts: dict[str, int] = {}

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        count = self._counts.get(name, 0) + 1
        self._counts[name] = count
        for fault in self._faults:
            if fault.tool == name and (fault.on_call is None or fault.on_call == count):
                return ToolResult(False, fault.error)
        return await self._inner.call(name, arguments)
