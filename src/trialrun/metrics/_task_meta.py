"""`TaskMeta`: what a summary row takes from a task's run.json entry, read once.

run.json's task entries are JSON objects of a dozen keys (a few hundred bytes each); a
`Summarizer` keeps instead one slotted record per task of the few it reads, their text
interned and equal tag and tracked-metric lists one shared tuple, so a 10,000-task run's
entries can be let go before its lines are read.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from trialrun.core import Interner
from trialrun.rundir import shared_tags


def pos_int(value: Any) -> int | None:
    """A k: an int >= 1 (not a bool); anything else is None (the caller falls back)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def _text(value: Any) -> str | None:
    return sys.intern(value) if isinstance(value, str) and value else None


# one tuple for every equal one (a few distinct tracked-metric lists over 10,000 tasks;
# an unhashable member: this task's own)
_shared: Interner[tuple[Any, ...]] = Interner()


def _tags(value: Any) -> tuple[str, ...]:
    return shared_tags(value) if isinstance(value, (list, tuple)) else ()


@dataclass(slots=True, frozen=True)
class TaskMeta:
    """A task's run.json entry as a summary row reads it (None: the entry lacks it, or
    holds no usable value; the row then falls back to the task's first line)."""

    listed: bool = False  # run.json has an entry for the task
    k: int | None = None
    suite: str | None = None
    tier: str | None = None
    metric: str | None = None
    policy: str | None = None
    tags: tuple[str, ...] | None = None  # None: the entry has no "tags" key
    tracked: tuple[Any, ...] | None = None  # `tracked_metrics` when it is a list

    @classmethod
    def of(cls, entry: dict[str, Any]) -> TaskMeta:
        """An entry of run.json's `tasks` (`{}`: a task it does not list)."""
        tracked = entry.get("tracked_metrics")
        return cls(
            listed=bool(entry),
            k=pos_int(entry.get("k")),
            suite=_text(entry.get("suite")),
            tier=_text(entry.get("tier")),
            metric=_text(entry.get("metric")),
            policy=_text(entry.get("policy")),
            tags=_tags(entry.get("tags")) if "tags" in entry else None,
            tracked=_shared(tuple(tracked)) if isinstance(tracked, list) else None,
        )


UNLISTED = TaskMeta()  # a task run.json does not list (an older run: no entries at all)


def metas_by_id(entries: Any) -> dict[str, TaskMeta]:
    """run.json's task entries (a list) by id, in their order (a later entry of the same
    id wins); entries that are no object or have no task id are passed over. Equal
    records are one object: 10,000 tasks of a few suites, tiers and tags hold a few."""
    out: dict[str, TaskMeta] = {}
    equal: dict[TaskMeta, TaskMeta] = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("task_id"):
            meta = TaskMeta.of(entry)
            if meta.tracked is None or all(isinstance(m, str) for m in meta.tracked):
                # (other tracked names may be equal and differ: 1 and True)
                meta = equal.setdefault(meta, meta)
            out[sys.intern(str(entry["task_id"]))] = meta
    return out
