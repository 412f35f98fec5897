"""Content snapshots of a directory and their diff (created / modified / deleted)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from trialrun.core import FileRefused, open_regular


@dataclass(slots=True)
class WorkspaceDiff:
    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.created or self.modified or self.deleted)

    def as_dict(self) -> dict[str, list[str]]:
        return {"created": self.created, "modified": self.modified, "deleted": self.deleted}


def _hash_file(path: str) -> str:
    # opened without following a link or waiting on a FIFO: a file swapped after the
    # scan (a process the agent left behind) is refused, never waited on
    with open_regular(path, follow_symlinks=False) as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def snapshot_dir(root: Path | str) -> dict[str, str]:
    """{relative posix path: sha256 hex} of every regular file under `root`.

    Symlinks are not followed: a symlink is recorded by the hash of its target text
    (prefixed "symlink:"), so a link pointing outside never makes us read outside.
    Empty directories and special files (fifos, sockets) are not recorded.
    """
    out: dict[str, str] = {}
    stack: list[tuple[str, str]] = [(os.fspath(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_symlink():
                    target = os.readlink(entry.path)
                    digest = hashlib.sha256(b"symlink:" + os.fsencode(target)).hexdigest()
                    out[rel] = digest
                elif entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, rel + "/"))
                elif entry.is_file(follow_symlinks=False):
                    out[rel] = _hash_file(entry.path)
            except (OSError, FileRefused):
                continue
    return dict(sorted(out.items()))


def diff_snapshots(before: dict[str, str], after: dict[str, str]) -> WorkspaceDiff:
    """What changed between two snapshots, each list sorted."""
    created = sorted(p for p in after if p not in before)
    deleted = sorted(p for p in before if p not in after)
    modified = sorted(p for p, h in after.items() if p in before and before[p] != h)
    return WorkspaceDiff(created, modified, deleted)
