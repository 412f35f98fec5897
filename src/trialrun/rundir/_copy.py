"""A copy of a run folder (`regrade --out`) that reads nothing it should not.

`shutil.copytree` follows symlinks and opens whatever it finds: a transcript file linked
to /dev/zero filled the disk. Here the run's own files (run.json, results, summary,
transcripts) must be regular files (a link to one is copied by content) within
`[rundir] max_file_bytes`; a FIFO, device, socket or linked folder is refused in one line
and the half-made copy removed. Kept workspaces are the agent's: their links are copied
as links (never read through), their FIFOs and sockets skipped, their files copied
without following a link.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from trialrun.core import FileRefused, copy_regular, file_kind
from trialrun.errors import UserError
from trialrun.rundir._limits import RunDirLimits, record_fix

AGENT_FOLDERS = ("workspaces", ".workspaces")  # the kept and the in-flight workspaces
_FIX = "a run folder holds the regular files trialrun wrote; replace it with one"


def copy_run_folder(src: Path, dst: Path, limits: RunDirLimits) -> None:
    """Copy the run folder `src` to the new folder `dst` (see the module doc); a refusal
    is a UserError naming the file, and `dst` is removed."""
    try:
        os.mkdir(dst)
    except OSError as exc:
        raise UserError(
            f"--out {dst}: cannot write ({exc.strerror or exc}); choose a writable path"
        ) from None
    try:
        _copy_folder(src, dst, limits, agent=False, top=True)
    except BaseException:
        shutil.rmtree(dst, ignore_errors=True)
        raise


def _copy_folder(src: Path, dst: Path, limits: RunDirLimits, *, agent: bool, top: bool) -> None:
    with os.scandir(src) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        source, target = Path(entry.path), dst / entry.name
        inside_agent = agent or (top and entry.name in AGENT_FOLDERS)
        info = entry.stat(follow_symlinks=False)
        try:
            if stat.S_ISDIR(info.st_mode):
                os.mkdir(target)
                _copy_folder(source, target, limits, agent=inside_agent, top=False)
                shutil.copystat(source, target, follow_symlinks=False)
            elif inside_agent:
                _copy_agent_entry(source, target, info.st_mode, limits)
            elif stat.S_ISLNK(info.st_mode) and os.path.isdir(source):
                raise FileRefused(f"a symlink to a folder, not copied; {_FIX}", source=source)
            else:
                copy_regular(source, target, limits.file_bytes, fix=_FIX,
                             limit_fix=record_fix("max_file_bytes"))
        except FileRefused:
            raise
        except OSError as exc:
            raise UserError(
                f"{source}: cannot copy to {target} ({exc.strerror or exc}); "
                "choose a writable --out with room for the run"
            ) from None


def _copy_agent_entry(source: Path, target: Path, mode: int, limits: RunDirLimits) -> None:
    """One entry of a kept workspace: a link as a link, a file without following."""
    if stat.S_ISLNK(mode):
        os.symlink(os.readlink(source), target)
    elif stat.S_ISREG(mode):
        copy_regular(source, target, limits.file_bytes, follow_symlinks=False, fix=_FIX,
                     limit_fix=record_fix("max_file_bytes"))
    # FIFOs and sockets an agent made are not content: skipped (devices cannot be made)
    elif not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        raise FileRefused(
            f"{file_kind(mode)}, not copied; {_FIX}", source=source, kind=file_kind(mode)
        )
