"""A large baseline file read a task entry at a time, each entry packed as it is read.

A blessed baseline of 100,000 trials is 8 MB of text; read whole, it is one tree of
dicts with a float object (24 bytes, and 8 more in its list) for every trial latency and
a fresh copy of every key in every entry. Here each entry of `tasks` is parsed on its
own and packed before the next: its keys and its repeated text (suite, tier, policy,
metric) are interned, and its `metrics.latencies_s` list of floats becomes an
`array("d")` (8 bytes a trial, the same doubles). Everything else reads as `json.loads`
reads it: the same decoder and hooks as summary.json's row-at-a-time reader, and any
text out of the plain shape gives None (the caller reads the file whole, with that
path's value or message).
"""

from __future__ import annotations

import json
import sys
from array import array
from collections.abc import Iterator, Mapping
from typing import Any

from trialrun.core import SharedValues
from trialrun.rundir._json_entries import entries, finite, read_object, refuse_constant

TEXT_KEYS = ("suite", "tier", "policy", "metric")  # a few distinct values over the tasks


def _interned_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return {sys.intern(key): value for key, value in pairs}


# each number's float, one for every entry that writes it the same (10,000 entries of
# pass_k 1.0, turns 2.0: a few objects, not one each); keyed by its text, so 0.0 and
# -0.0 (equal, written differently) are two
_FLOATS: SharedValues[str, float] = SharedValues()


def _shared_float(literal: str) -> float:
    return _FLOATS.make(literal, finite)


# an entry's objects with their keys interned: one "latencies_s" for every entry
_ENTRY_DECODER = json.JSONDecoder(
    parse_constant=refuse_constant, parse_float=_shared_float, object_pairs_hook=_interned_keys
)


class PackedEntry(Mapping[str, Any]):
    """A read-only JSON object of a baseline file in two references: its keys' positions
    (one shared dict for every object with the same keys in the same order) and a tuple
    of its values. A task entry of 15 keys is about 220 bytes, not a 650-byte dict; it
    reads (and compares) as the dict it was, its keys in the file's order."""

    __slots__ = ("_index", "_values")

    def __init__(self, pairs: dict[str, Any]) -> None:
        keys = tuple(pairs)
        self._index: Mapping[str, int] = _LAYOUTS.make(keys, _positions)
        self._values = tuple(pairs.values())

    def __getitem__(self, key: str) -> Any:
        return self._values[self._index[key]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def get(self, key: str, default: Any = None) -> Any:
        at = self._index.get(key)
        return default if at is None else self._values[at]

    def __repr__(self) -> str:
        return repr(dict(self))


def _positions(keys: tuple[str, ...]) -> Mapping[str, int]:
    return {key: at for at, key in enumerate(keys)}


# each distinct key order's positions, shared (a baseline's entries have one or two)
_LAYOUTS: SharedValues[tuple[str, ...], Mapping[str, int]] = SharedValues()


def packed_entry(entry: Any) -> Any:
    """A task entry with its repeated text interned, its latencies packed (a list of
    floats only: anything else stays as read), and it and its metrics each a
    `PackedEntry` (an object with a key twice, which json keeps once: the same)."""
    if not isinstance(entry, dict):
        return entry
    for key in TEXT_KEYS:
        if isinstance(value := entry.get(key), str):
            entry[key] = sys.intern(value)
    metrics = entry.get("metrics")
    if isinstance(metrics, dict):
        latencies = metrics.get("latencies_s")
        if isinstance(latencies, list) and all(x.__class__ is float for x in latencies):
            metrics["latencies_s"] = array("d", latencies)
        entry["metrics"] = PackedEntry(metrics)
    return PackedEntry(entry)


def plain_entry(entry: Any) -> Any:
    """A task entry as the file holds it: a dict (its metrics one too) with its latencies
    a list (a copy), when it was packed; anything else as it is."""
    if not isinstance(entry, Mapping):
        return entry
    metrics = entry.get("metrics")
    if isinstance(entry, dict) and (not isinstance(metrics, Mapping) or (
            isinstance(metrics, dict) and not isinstance(metrics.get("latencies_s"), array))):
        return entry  # already as the file holds it: no copy
    if isinstance(metrics, Mapping):
        latencies = metrics.get("latencies_s")
        if isinstance(latencies, array):
            metrics = {**metrics, "latencies_s": latencies.tolist()}
        metrics = dict(metrics)
        return {**entry, "metrics": metrics}
    return dict(entry)


def baseline_by_tasks(text: str) -> dict[str, Any] | None:
    """The baseline file's object with its task entries read and packed one at a time;
    None when the text is not of the plain shape (the caller reads it whole)."""
    try:
        return _read(text)
    except Exception:  # any refusal: the whole-file path says what is wrong, as before
        return None


def _read(text: str) -> dict[str, Any]:
    return read_object(
        text, lambda text, at, data: entries(
            text, at, _ENTRY_DECODER, lambda entry, n: packed_entry(entry)
        )
    )
