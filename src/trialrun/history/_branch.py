"""Which branch's runs promotion, demotion and the report read: the main branch.

`--branch NAME`, else `[history] branch` in trialrun.toml, else `main`; `--all-branches`
reads every run. A run whose branch is unknown (recorded outside git, from a detached
HEAD no CI variable names, or before trialrun recorded branches) counts as the main
branch's: a project without git has one line of history, and an old store keeps its
record.
"""

from __future__ import annotations

from trialrun.config import ProjectConfig
from trialrun.errors import UserError

DEFAULT_BRANCH = "main"


def main_branch(
    explicit: str | None = None, *, all_branches: bool = False, config: ProjectConfig
) -> str | None:
    """The branch to read (None: every branch); `config`: the project's trialrun.toml."""
    if all_branches:
        if explicit is not None:
            raise UserError("--branch and --all-branches: pass one of them")
        return None
    if explicit is not None:
        if not explicit.strip():
            raise UserError("--branch: empty; name a branch, e.g. --branch main")
        return explicit.strip()
    value = config.section("history").get("branch", DEFAULT_BRANCH)
    if not isinstance(value, str) or not value.strip():
        raise UserError(
            f"{config.path}: [history] branch must be a branch name, e.g. branch = \"main\""
        )
    return value.strip()
