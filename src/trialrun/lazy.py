"""A package whose public names are imported on first use (PEP 562).

`__getattr__, __dir__ = lazy_exports(__name__, globals(), EXPORTS)` at the end of a
package's `__init__`, with `EXPORTS` mapping each public name to the module that defines
it: importing the package loads none of them, and a name once read is kept in the
package's namespace (the next read is a plain attribute lookup).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` of `package` (its `globals()` is
    `namespace`) for the names in `exports` (name -> the module that defines it)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
