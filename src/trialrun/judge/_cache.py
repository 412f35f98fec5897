"""On-disk verdict cache: (judge model, prompt sha256) → parsed verdict and raw replies.

One JSON-lines file, `verdicts.jsonl`, in the cache folder. Each entry is written with a
single `write()` on an O_APPEND descriptor, so concurrent writers (asyncio tasks, or two
processes) never interleave within a line; a torn last line is ignored on load. Lookups
read lines appended by other processes since the last read before giving up. Only
determined verdicts are cached: a failed judge call is tried again next time.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from trialrun.rundir import loads_limited

CACHE_FILE = "verdicts.jsonl"


class VerdictCache:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / CACHE_FILE
        self._index: dict[str, dict[str, Any]] = {}
        self._offset = 0
        self._locks: dict[tuple[int, str], asyncio.Lock] = {}

    @staticmethod
    def key(judge: str, prompt_sha256: str) -> str:
        return f"{judge}\x00{prompt_sha256}"

    def _refresh(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        for line in data[: end + 1].splitlines():
            try:
                entry = loads_limited(line)  # 10^5 nested brackets: a ValueError too
                self._index[self.key(entry["judge"], entry["prompt_sha256"])] = entry
            except (ValueError, KeyError, TypeError):
                continue  # a damaged line is a miss, never a crash
        self._offset += end + 1

    def get(self, judge: str, prompt_sha256: str) -> dict[str, Any] | None:
        key = self.key(judge, prompt_sha256)
        if key not in self._index:
            self._refresh()
        return self._index.get(key)

    def put(self, judge: str, prompt_sha256: str, value: Any, raw_replies: list[str]) -> None:
        entry = {
            "judge": judge,
            "prompt_sha256": prompt_sha256,
            "value": value,
            "raw_replies": raw_replies,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        self._index[self.key(judge, prompt_sha256)] = entry

    def lock(self, judge: str, prompt_sha256: str) -> asyncio.Lock:
        """One lock per key (and event loop), so two identical judge calls in flight cost
        one model call."""
        key = (id(asyncio.get_running_loop()), self.key(judge, prompt_sha256))
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def release(self, judge: str, prompt_sha256: str) -> None:
        key = (id(asyncio.get_running_loop()), self.key(judge, prompt_sha256))
        lock = self._locks.get(key)
        if lock is not None and not lock.locked():
            self._locks.pop(key, None)

    def __len__(self) -> int:
        self._refresh()
        return len(self._index)


_caches: dict[Path, VerdictCache] = {}


def cache_for(folder: Path) -> VerdictCache:
    """The process-wide cache object for `folder` (one index per folder)."""
    folder = Path(folder).resolve()
    if folder not in _caches:
        _caches[folder] = VerdictCache(folder)
    return _caches[folder]
