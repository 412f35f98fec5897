"""Checks of a tool pack's options at task load: one line naming the pack and the fix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trialrun.errors import UserError

ToolPackCheck = Callable[[dict[str, Any]], None]


def no_options(name: str) -> ToolPackCheck:
    """The check of a pack that takes no options."""

    def check(options: dict[str, Any]) -> None:
        if options:
            raise UserError(f'tool pack {name}: takes no options; list it as "{name}"')

    return check


def known_options(name: str, allowed: dict[str, type | tuple[type, ...]]) -> ToolPackCheck:
    """The check of a pack whose options are `allowed` (name → accepted types); numbers
    must also be > 0."""

    def check(options: dict[str, Any]) -> None:
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise UserError(
                f"tool pack {name}: unknown option(s) {unknown}; allowed: {', '.join(allowed)}"
            )
        for key, value in options.items():
            kinds = allowed[key]
            ok = isinstance(value, kinds) and not isinstance(value, bool)
            if ok and isinstance(value, int | float) and not value > 0:
                ok = False
            if not ok:
                raise UserError(f"tool pack {name}: {key} must be {_kind_text(kinds)} > 0")

    return check


def _kind_text(kinds: type | tuple[type, ...]) -> str:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join("a number" if k in (int, float) else f"a {k.__name__}" for k in kinds)
