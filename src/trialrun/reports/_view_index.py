"""The viewer's overview of a run, written when the run ends (`view-cache.json`).

`trialrun view` answers a finished run's first overview from the cache beside it
(`_view_cache`); without one it reads every results line first (about 5 s at 100,000
trials). So a large run writes the cache as it ends, keyed exactly as `trialrun view`
keys it (no baselines folder, the project's [compare] settings), and the first visit is
a file read. It is built in a child process (`python -m trialrun.reports._view_index`):
the run's own memory stays what it was, and the child's is returned to the system when
it exits. A run below `VIEW_INDEX_FROM` trials builds its overview in well under a
second and writes nothing. Any failure here leaves the run as it was: the viewer builds
the overview itself, as before.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from trialrun.reports._server import run_version
from trialrun.reports._view import RunView
from trialrun.reports._view_cache import cache_key, store_overview
from trialrun.rundir import RunDirLimits
from trialrun.runner import ctrl_c_raises, lock_holder
from trialrun.tracking import CompareSettings

VIEW_INDEX_FROM = 10_000  # trials; a smaller run's overview builds in under a second


def write_view_index(
    run_dir: Path | str,
    settings: CompareSettings = CompareSettings(),
    limits: RunDirLimits = RunDirLimits(),
) -> bool:
    """Build a finished run's overview and cache it as `trialrun view` would; False
    when the run is still being written or its folder refuses the file."""
    path = Path(run_dir)
    if lock_holder(path) is not None:
        return False
    key = cache_key(path, run_version(path), None, settings.alpha, settings.method)
    view = RunView(path, None, settings, limits)
    try:
        page = view.overview()
    finally:
        view.close()
    del view  # the run's lines and records go before the page is encoded
    return store_overview(path, key, page)


def view_index_command(
    run_dir: Path, settings: CompareSettings, limits: RunDirLimits
) -> list[str]:
    """The child process that writes the index (every setting on its command line: the
    child reads no trialrun.toml)."""
    return [sys.executable, "-m", "trialrun.reports._view_index", str(run_dir),
            "--alpha", repr(settings.alpha), "--method", settings.method,
            "--record-bytes", str(limits.record_bytes), "--file-bytes", str(limits.file_bytes)]


class PendingIndex:
    """The index's child, started as the run ends and waited for after the other steps
    (history record, compare, gate), which read the run alongside it. Leaving the block
    early (an error, Ctrl-C) stops the child."""

    def __init__(self, run_dir: Path, child: subprocess.Popen[str] | None) -> None:
        self.run_dir = run_dir
        self._child = child

    def wait(self) -> str | None:
        """A warning when the child failed (the run stands either way), else None."""
        child, self._child = self._child, None
        if child is None:
            return None
        with _ctrl_c_stops(child):
            _, err = child.communicate()
        if child.returncode != 0:
            last = (err.strip().splitlines() or ["no message"])[-1]
            return f"the viewer's index of {self.run_dir} was not written ({last}); " \
                   "`trialrun view` builds it on the first visit"
        return None

    def __enter__(self) -> PendingIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.kill()
            child.communicate()


def start_index_after_run(
    run_dir: Path, trials: int, settings: CompareSettings, limits: RunDirLimits,
    *, from_trials: int | None = VIEW_INDEX_FROM,
) -> PendingIndex:
    """Start writing the index of a run of `trials` finished trials when it is large
    enough (`from_trials`; None: never); nothing to wait for otherwise."""
    if from_trials is None or trials < from_trials:
        return PendingIndex(run_dir, None)
    return PendingIndex(run_dir, subprocess.Popen(
        view_index_command(run_dir, settings, limits),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))


def index_after_run(
    run_dir: Path, trials: int, settings: CompareSettings, limits: RunDirLimits,
    *, from_trials: int = VIEW_INDEX_FROM,
) -> str | None:
    """Write the index of a run of `trials` finished trials when it is large enough;
    a warning when the child failed (the run stands either way), else None."""
    with start_index_after_run(run_dir, trials, settings, limits,
                               from_trials=from_trials) as pending:
        return pending.wait()


@contextlib.contextmanager
def _ctrl_c_stops(child: subprocess.Popen[str]) -> Iterator[None]:
    """While the index is built, Ctrl-C interrupts the run's end (exit 130) and the
    child is stopped: the run's own handler is gone by then (`ctrl_c_raises`)."""
    try:
        with ctrl_c_raises():
            yield
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trialrun.reports._view_index",
                                     description=(__doc__ or "").splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--alpha", type=float, default=CompareSettings().alpha)
    parser.add_argument("--method", default=CompareSettings().method)
    parser.add_argument("--record-bytes", type=int, default=RunDirLimits().record_bytes)
    parser.add_argument("--file-bytes", type=int, default=RunDirLimits().file_bytes)
    opts = parser.parse_args(argv)
    settings = CompareSettings(opts.alpha, opts.method)
    limits = RunDirLimits(opts.record_bytes, opts.file_bytes)
    if not write_view_index(opts.run_dir, settings, limits):
        print(f"{opts.run_dir}: still being written, or the folder refuses the file",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
