"""The git checkout a file lives in: its commit, its branch, its top folder.

Every answer is None outside git (or without a git binary). A checked-out branch is the
branch. A detached HEAD (what CI services check out) takes the branch the CI service
names in its environment, the first set of `CI_BRANCH_VARIABLES`; GitHub's
`GITHUB_REF_NAME` only when `GITHUB_REF_TYPE` says it names a branch (not a tag).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# the branch a detached CI checkout was made from, most specific first: a pull/merge
# request's source branch, then the branch a push or scheduled pipeline ran on
CI_BRANCH_VARIABLES = (
    "GITHUB_HEAD_REF",  # GitHub Actions, pull_request events
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",  # GitLab, merge request pipelines
    "GITHUB_REF_NAME",  # GitHub Actions, push and schedule events (a branch or a tag)
    "CI_COMMIT_BRANCH",  # GitLab, branch pipelines (unset for tags)
    "BUILDKITE_BRANCH",
    "CIRCLE_BRANCH",
)


def _git(folder: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def _folder(where: Path | None) -> Path:
    path = Path.cwd() if where is None else Path(where)
    return path if path.is_dir() else path.parent


def git_commit(where: Path | None = None) -> str | None:
    """The commit checked out at `where` (a file or folder; default the working folder)."""
    return _git(_folder(where), "rev-parse", "HEAD")


def git_toplevel(where: Path | None = None) -> Path | None:
    """The top folder of the checkout holding `where`."""
    top = _git(_folder(where), "rev-parse", "--show-toplevel")
    return Path(top).resolve() if top else None


def ci_branch() -> str | None:
    """The branch the CI service says it checked out (see `CI_BRANCH_VARIABLES`)."""
    for name in CI_BRANCH_VARIABLES:
        value = os.environ.get(name, "").strip()
        if not value:
            continue
        if name == "GITHUB_REF_NAME" and os.environ.get("GITHUB_REF_TYPE", "branch") != "branch":
            continue
        return value
    return None


def git_branch(where: Path | None = None) -> str | None:
    """The branch checked out at `where`; for a detached HEAD, the CI service's branch
    (None when it names none); None outside git."""
    folder = _folder(where)
    branch = _git(folder, "symbolic-ref", "--quiet", "--short", "HEAD")
    if branch is not None:
        return branch
    if _git(folder, "rev-parse", "--git-dir") is None:
        return None  # not a checkout
    return ci_branch()
