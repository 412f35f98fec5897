"""Suite-wide environment, so the tests pass the same on a laptop and in CI:

- CLI runs the tests start record nothing in a history store unless a test asks for one
  (`TRIALRUN_HISTORY=off`; the history tests pass `--store` or unset it);
- the variables a CI service sets (`CI`, GitHub's `GITHUB_*`, the branch variables of
  `trialrun.core.CI_BRANCH_VARIABLES`) and `TRIALRUN_TRIGGER` are cleared, so a run's
  detected trigger is `local` and a detached checkout has no branch unless a test sets
  them itself."""

from __future__ import annotations

import os

os.environ.setdefault("TRIALRUN_HISTORY", "off")
for _name in ("CI", "TRIALRUN_TRIGGER", "GITHUB_EVENT_NAME", "GITHUB_HEAD_REF",
              "GITHUB_REF_NAME", "GITHUB_REF_TYPE", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
              "CI_COMMIT_BRANCH", "BUILDKITE_BRANCH", "CIRCLE_BRANCH"):
    os.environ.pop(_name, None)
