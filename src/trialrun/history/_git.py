"""Where a run comes from: git sha and branch, and its trigger (ci, nightly or local)."""

from __future__ import annotations

import os
from pathlib import Path

from trialrun.core import git_branch, git_commit
from trialrun.errors import UserError
from trialrun.history._records import TRIGGERS


def git_info(where: Path | None = None) -> tuple[str | None, str | None]:
    """(sha, branch) of the checkout at `where` (None, None outside git); a detached
    HEAD's branch is its CI service's (see `trialrun.core.git_branch`)."""
    return git_commit(where), git_branch(where)


def detect_trigger(explicit: str | None = None) -> str:
    """`explicit` if given (checked); else `TRIALRUN_TRIGGER`; else `ci` when `CI` is set
    (GitHub Actions' scheduled runs count as `nightly`); else `local`."""
    value = explicit or os.environ.get("TRIALRUN_TRIGGER")
    if value:
        value = value.strip().lower()
        if value not in TRIGGERS:
            raise UserError(
                f"--trigger {value!r}: unknown trigger; use one of {', '.join(TRIGGERS)}"
            )
        return value
    if os.environ.get("GITHUB_EVENT_NAME") == "schedule":
        return "nightly"
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return "ci"
    return "local"
