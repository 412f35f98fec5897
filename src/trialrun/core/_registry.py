"""A small name → object registry fed by decorators and by entry points.

Graders, model providers and tool packs each keep one `Registry`. Built-ins register
when their module is imported; third parties register through the entry point group
(`trialrun.graders`, `trialrun.models`, `trialrun.tools`), loaded on first lookup.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str, entry_point_group: str, builtin_modules: tuple[str, ...]) -> None:
        self.kind = kind
        self.group = entry_point_group
        self._builtin_modules = builtin_modules
        self._items: dict[str, T] = {}
        self._loaded = False

    def add(self, name: str, item: T) -> T:
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        def decorate(item: T) -> T:
            return self.add(name, item)

        return decorate

    def import_builtins(self) -> None:
        """Import the built-in modules (each registers what it defines as it loads); the
        entry points are still read on the first lookup."""
        for module in self._builtin_modules:
            importlib.import_module(module)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        self.import_builtins()
        for ep in entry_points(group=self.group):
            loaded = ep.load()
            if ep.name not in self._items:
                self._items[ep.name] = loaded

    def get(self, name: str) -> T | None:
        self._load()
        return self._items.get(name)

    def names(self) -> list[str]:
        self._load()
        return sorted(self._items)

    def suggest(self, name: str) -> str | None:
        """The closest known name, for did-you-mean messages."""
        close = difflib.get_close_matches(name, self.names(), n=1, cutoff=0.6)
        return close[0] if close else None

    def __iter__(self) -> Iterator[tuple[str, T]]:
        self._load()
        return iter(sorted(self._items.items()))

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._items
