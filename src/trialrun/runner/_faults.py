"""Fault injection: a Toolbox whose named tools fail (always, or on call number `on_call`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trialrun.tools._tool import ToolResult
from trialrun.tools._toolbox import Toolbox

if TYPE_CHECKING:
    from trialrun.tasks._model import Fault


class FaultyToolbox(Toolbox):
    """Wraps a toolbox: a faulted tool returns an error result instead of running."""

    def __init__(self, inner: Toolbox, faults: list[Fault]) -> None:
        # share the inner toolbox's tools and specs; no re-validation on the hot path
        self.ctx = inner.ctx
        self._tools = inner._tools
        self._specs = inner._specs
        self._inner = inner
        self._faults = faults
        self._counts: dict[str, int] = {}

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        count = self._counts.get(name, 0) + 1
        self._counts[name] = count
        for fault in self._faults:
            if fault.tool == name and (fault.on_call is None or fault.on_call == count):
                return ToolResult(False, fault.error)
        return await self._inner.call(name, arguments)
