"""`SharedValues`: one object for every equal value, up to a cap of distinct ones.

A reader of 10,000 tasks makes the same few tag tuples, counts, trial-number tuples and
offender records again and again; each kept once, every task holds a reference (8
bytes) instead of its own copy. The table is capped: past `limit` distinct keys a value
not held yet is handed back as is (each task its own, as before any sharing), so a run
of all-distinct values cannot grow it without bound. A key that cannot be hashed (a
list inside a tuple) is never held. Held values must not be changed by their users.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MAX_SHARED = 4096  # distinct keys a table holds by default


class SharedValues(Generic[K, V]):
    """Each key's one shared value (`share`, `make`), up to `limit` distinct keys."""

    __slots__ = ("_held", "limit")

    def __init__(self, limit: int = MAX_SHARED) -> None:
        self._held: dict[K, V] = {}
        self.limit = limit

    def __len__(self) -> int:
        return len(self._held)

    def held(self, key: K) -> V | None:
        """The value shared for `key`, None when none is (or the key is unhashable)."""
        try:
            return self._held.get(key)
        except TypeError:
            return None

    def share(self, key: K, value: V) -> V:
        """The value held for `key`; else `value`, held for it while there is room."""
        try:
            found = self._held.get(key)
        except TypeError:
            return value
        if found is None:
            found = value
            if len(self._held) < self.limit:
                self._held[key] = value
        return found

    def make(self, key: K, make: Callable[[K], V]) -> V:
        """The value held for `key`; else `make(key)`, held for it while there is room
        (past the cap, or for an unhashable key, made anew each time)."""
        try:
            found = self._held.get(key)
        except TypeError:
            return make(key)
        if found is None:
            found = make(key)
            if len(self._held) < self.limit:
                self._held[key] = found
        return found


class Interner(SharedValues[K, K]):
    """One object for every equal value (the value is its own key): `intern(value)`."""

    __slots__ = ()

    def __call__(self, value: K) -> K:
        return self.share(value, value)
