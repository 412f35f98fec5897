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
from typing import Any

from trialrun.rundir._json_entries import entries, finite, read_object, refuse_constant

TEXT_KEYS = ("suite", "tier", "policy", "metric")  # a few distinct values over the tasks


def _interned_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return {sys.intern(key): value for key, value in pairs}


# an entry's objects with their keys interned: one "latencies_s" for every entry
_ENTRY_DECODER = json.JSONDecoder(
    parse_constant=refuse_constant, parse_float=finite, object_pairs_hook=_interned_keys
)


def packed_entry(entry: Any) -> Any:
    """A task entry with its repeated text interned and its latencies packed (a list of
    floats only: anything else stays as read)."""
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
    return entry


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
