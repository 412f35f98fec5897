"""Runs whose record found the SQLite store locked: queued beside it, recorded later.

`trialrun run` waits `RUN_WAIT_S` for a store another process holds locked (not the
store's whole busy timeout); then it appends the run (its folder, trigger and source) to
`<store file>.pending`, one JSON line, and says so. The next command that opens the store
to write (`HistoryStore.open`: every history command, the next run; not the readers
`report` and `view`) records the queued runs first: a run already
stored is skipped as always, and while the store is still locked they stay queued. A
queued run whose folder can no longer be read is dropped with one line on stderr, never
silently.
"""

from __future__ import annotations

import fcntl
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Protocol

from trialrun.errors import UserError
from trialrun.history._import import run_record
from trialrun.history._records import RunRecord
from trialrun.rundir import RunDirLimits

RUN_WAIT_S = 5.0  # how long a run's record waits for a locked store before queuing
SUFFIX = ".pending"


class _Recorder(Protocol):
    url: str

    def record(self, run: RunRecord) -> bool: ...


def pending_path(url: str) -> Path | None:
    """The queue beside a SQLite store's file; None for other stores."""
    if not url.startswith("sqlite:///") or url.startswith("sqlite:///:memory:"):
        return None
    db = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
    return db.with_name(db.name + SUFFIX)


def queue_record(url: str, run_dir: Path | str, trigger: str, source: str) -> Path:
    """Queue a run for the store at `url` (OSError when the queue cannot be written)."""
    path = pending_path(url)
    if path is None:
        raise OSError(f"{url}: only a SQLite store has a queue")
    entry = {"run_dir": str(Path(run_dir).resolve()), "trigger": trigger, "source": source}
    with path.open("a", encoding="utf-8") as queue:
        fcntl.flock(queue, fcntl.LOCK_EX)
        queue.write(json.dumps(entry) + "\n")
    return path


def import_pending(
    store: _Recorder,
    say: Callable[[str], None] | None = None,
    limits: RunDirLimits | None = None,
) -> int:
    """Record the runs queued for `store` (each read within `limits`: the project's
    `[rundir]`; None: the defaults); how many were taken off the queue."""
    path = pending_path(store.url)
    if path is None or not path.is_file() or path.stat().st_size == 0:
        return 0
    say = say or _to_stderr
    with path.open("r+", encoding="utf-8") as queue:
        fcntl.flock(queue, fcntl.LOCK_EX)  # one importer at a time; appenders wait
        entries = queue.read().splitlines()
        left = _record_each(store, entries, path, say, limits)
        _rewrite(queue, left)
    return len(entries) - len(left)


def _record_each(
    store: _Recorder,
    entries: list[str],
    path: Path,
    say: Callable[[str], None],
    limits: RunDirLimits | None,
) -> list[str]:
    """Record the queued runs in order; the entries still to do (the store is locked)."""
    for i, raw in enumerate(entries):
        entry = _entry(raw)
        if entry is None:
            if raw.strip():
                say(f"trialrun: history: {path}: line {i + 1} is not a queued run; dropped")
            continue
        try:
            record = run_record(entry["run_dir"], trigger=entry["trigger"],
                                source=entry["source"], limits=limits)
        except UserError as exc:
            say(f"trialrun: history: queued run {entry['run_dir']} not recorded: {exc}")
            continue
        try:
            store.record(record)
        except UserError:  # still locked (or failing): kept for the next command
            return entries[i:]
    return []


def _entry(raw: str) -> dict[str, str] | None:
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return None
    keys = ("run_dir", "trigger", "source")
    if isinstance(value, dict) and all(isinstance(value.get(k), str) for k in keys):
        return {k: value[k] for k in keys}
    return None


def _rewrite(queue: IO[str], left: list[str]) -> None:
    queue.seek(0)
    queue.truncate()
    queue.write("".join(line + "\n" for line in left))


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)
