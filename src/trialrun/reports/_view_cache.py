"""The viewer's overview of a finished run, cached beside it (`<run>/view-cache.json`).

Building a run's overview reads every results line (11–12 s and ~670 MB at 100,000
trials); the overview itself is a few MB. `trialrun view` therefore writes it once into
the run folder and answers later first visits from that file. The cache is keyed by
what the overview is computed from: the results, summary and run.json files' size and
mtime (`run_version`), the run folder's path, the baselines folder's entries, the
[compare] alpha and method, and the trialrun version; any change rebuilds it. A run still
being written is never cached.
The file is derived data, written atomically like every file of a run folder; a cache
that is a symlink is neither read nor written through, and a read-only or damaged one
is simply rebuilt in memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.reports._view import dumps
from trialrun.rundir import VIEW_CACHE, read_json, write_text_atomic
from trialrun.version import __version__

FORMAT = 2  # 2: a trial's number is its place in results.jsonl
_LIMIT = 512 * 1024 * 1024  # an overview of a million-trial run stays far below


def cache_key(
    run_dir: Path, version: str, baselines_dir: Path | str | None, alpha: float, method: str
) -> dict[str, Any]:
    """What a cached overview is valid for (`version` is the server's `run_version`;
    `alpha` and `method` the [compare] settings its baseline comparison used)."""
    return {
        "format": FORMAT,
        "trialrun": __version__,
        "run": version,
        "path": str(Path(run_dir).absolute()),
        "baselines": _folder_stamp(baselines_dir),
        "compare": [alpha, method],
    }


def _folder_stamp(folder: Path | str | None) -> list[str] | None:
    if folder is None:
        return None
    try:
        with os.scandir(folder) as entries:
            return sorted(f"{e.name}:{e.stat(follow_symlinks=False).st_size}:"
                          f"{e.stat(follow_symlinks=False).st_mtime_ns}" for e in entries)
    except OSError:
        return []


def load_overview(run_dir: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cached overview when it was written for `key`, else None."""
    path = Path(run_dir) / VIEW_CACHE
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    try:
        data = read_json(path, "delete it; the viewer rebuilds it", _LIMIT)
    except (UserError, OSError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    page = data.get("overview")
    return page if isinstance(page, dict) else None


def store_overview(run_dir: Path, key: dict[str, Any], page: dict[str, Any]) -> bool:
    """Write the cache (atomically); False when the folder refuses it (read-only)."""
    path = Path(run_dir) / VIEW_CACHE
    if os.path.islink(path):
        return False
    try:  # compact: the indented form of a 100,000-trial overview was ~3x the text
        write_text_atomic(path, dumps({"key": key, "overview": page}) + "\n")
    except (UserError, OSError):
        return False
    return True
