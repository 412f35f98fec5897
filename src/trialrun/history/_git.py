"""Where a run comes from: git sha and branch, and its trigger (ci, nightly or local)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from trialrun.errors import UserError
from trialrun.history._records import TRIGGERS


def git_info(where: Path | None = None) -> tuple[str | None, str | None]:
    """(sha, branch) of the checkout at `where` (None, None outside git)."""
    sha = _git(["rev-parse", "HEAD"], where)
    branch = _git(["rev-parse", "--abbrev-ref", "HEAD"], where)
    env_branch = os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME")
    if (branch in (None, "HEAD")) and env_branch:
        branch = env_branch  # detached checkouts in CI
    return sha, (None if branch == "HEAD" else branch)


def _git(args: list[str], where: Path | None) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=where, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


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
