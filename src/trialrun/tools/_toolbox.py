"""The set of tools one trial exposes, with dispatch by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from trialrun.core import Registry, ToolSpec
from trialrun.errors import UserError
from trialrun.tools._settings import ToolSettings
from trialrun.tools._tool import Tool, ToolContext, ToolResult, check_timeout, default_tool_timeout

# A tool pack factory takes the pack's options from the task (or {}) and returns tools.
ToolPackFactory = Callable[[dict[str, Any]], list[Tool]]
# A pack configured by trialrun.toml's [tools] tables also takes the run's ToolSettings.
ConfiguredPackFactory = Callable[[dict[str, Any], ToolSettings], list[Tool]]
# A pack's options check: a UserError (one line) for options its factory would refuse or
# silently ignore; run when a task is loaded, without starting or importing anything.
ToolPackCheck = Callable[[dict[str, Any]], None]

TOOL_PACKS: Registry[ToolPackFactory] = Registry(
    "tool pack", "trialrun.tools", builtin_modules=("trialrun.tools.builtin",)
)


_CHECKS: dict[str, ToolPackCheck] = {}
_CONFIGURED: dict[str, ConfiguredPackFactory] = {}


def tool_pack(
    name: str, check: ToolPackCheck | None = None
) -> Callable[[ToolPackFactory], ToolPackFactory]:
    """Register a tool pack factory under `name` (used in a task's `environment.tools`),
    with `check` for its options at task load time."""
    if check is not None:
        _CHECKS[name] = check
    return TOOL_PACKS.register(name)


def configured_tool_pack(
    name: str, check: ToolPackCheck | None = None
) -> Callable[[ConfiguredPackFactory], ConfiguredPackFactory]:
    """Register a pack whose factory also takes the run's `ToolSettings` (what
    `load_pack` is given; built without them, it gets the defaults: nothing configured)."""

    def register(factory: ConfiguredPackFactory) -> ConfiguredPackFactory:
        _CONFIGURED[name] = factory
        tool_pack(name, check)(lambda options: factory(options, ToolSettings()))
        return factory

    return register


def tool_pack_problem(name: Any, options: Any = None) -> str | None:
    """Why a task's `environment.tools` entry would fail or be ignored at run time (an
    unknown pack, options that are no mapping or that the pack refuses), or None."""
    if not isinstance(name, str) or TOOL_PACKS.get(name) is None:
        hint = TOOL_PACKS.suggest(name) if isinstance(name, str) else None
        did = f"; did you mean '{hint}'?" if hint else ""
        return f"unknown tool pack {name!r}{did} (known: {', '.join(TOOL_PACKS.names())})"
    if options is not None and not isinstance(options, dict):
        return (
            f"tool pack {name}: its options must be a mapping, e.g. {{{name}: {{option: value}}}} "
            f"(got {type(options).__name__})"
        )
    check = _CHECKS.get(name)
    if check is not None:
        try:
            check(options or {})
        except UserError as exc:
            return str(exc)
    return None


def pack_factory(name: str) -> ToolPackFactory:
    """The factory registered as tool pack `name`; a UserError (one line) if none is."""
    factory = TOOL_PACKS.get(name)
    if factory is None:
        hint = TOOL_PACKS.suggest(name)
        did = f" (did you mean '{hint}'?)" if hint else ""
        raise UserError(f"unknown tool pack '{name}'{did}; known: {', '.join(TOOL_PACKS.names())}")
    return factory


def load_pack(
    name: str, options: dict[str, Any] | None = None, settings: ToolSettings | None = None
) -> list[Tool]:
    """The tools of pack `name` with the task's `options`; `settings`: the run's [tools]
    tables of trialrun.toml (None: the defaults, as without the file)."""
    factory = pack_factory(name)
    if (check := _CHECKS.get(name)) is not None:
        check(options or {})
    configured = _CONFIGURED.get(name)
    if configured is not None:
        return configured(options or {}, settings or ToolSettings())
    return factory(options or {})


class Toolbox:
    """The trial's tools. `call_timeout_s`: the per-call limit of tools without their own
    (default: TRIALRUN_TOOL_TIMEOUT_S, else 30 s)."""

    def __init__(
        self, tools: Iterable[Tool], ctx: ToolContext, call_timeout_s: float | None = None
    ) -> None:
        self.ctx = ctx
        self.call_timeout_s = (
            default_tool_timeout()
            if call_timeout_s is None
            else check_timeout(call_timeout_s, "Toolbox(call_timeout_s=…)")
        )
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self._tools[t.name] = t
        self._specs = [t.spec() for t in self._tools.values()]

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return self._specs

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        t = self._tools.get(name)
        if t is None:
            return ToolResult(
                False, f"unknown tool '{name}'; available: {', '.join(self._tools) or 'none'}"
            )
        return await t.call(self.ctx, arguments, self.call_timeout_s)
