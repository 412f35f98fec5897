"""Shared types at the bottom of the house: every package may import these, and this
package imports nothing of trialrun but `trialrun.errors`.

Chat messages, tool-call records, verdicts, model specs, the name registry behind the
`@grader`/`@tool_pack`/`@model_provider` decorators, object loading and the git checkout
(commit, branch) live here so that the packages above (models, tools, graders, agents,
runner, rundir, history) agree on them without importing each other.
"""

from trialrun.core._git import (
    CI_BRANCH_VARIABLES,
    ci_branch,
    git_branch,
    git_commit,
    git_toplevel,
)
from trialrun.core._model_spec import (
    ModelSpec,
    is_unpinned,
    model_endpoint,
    model_label,
    model_name,
    parse_model_spec,
    slugify,
    split_base_url,
)
from trialrun.core._objects import load_object
from trialrun.core._records import Message, ToolCallRecord, ToolSpec, Verdict
from trialrun.core._redacted_json import redacted_json
from trialrun.core._registry import Registry
from trialrun.core._secrets import (
    KEY_VARIABLES,
    MASK,
    may_hold_secret,
    redact,
    redact_argv,
    redact_with,
    secret_values,
    strip_credentials,
    strip_userinfo,
)
from trialrun.core._threads import run_sync

__all__ = [
    "CI_BRANCH_VARIABLES",
    "KEY_VARIABLES",
    "MASK",
    "Message",
    "ModelSpec",
    "Registry",
    "ToolCallRecord",
    "ToolSpec",
    "Verdict",
    "ci_branch",
    "git_branch",
    "git_commit",
    "git_toplevel",
    "is_unpinned",
    "load_object",
    "may_hold_secret",
    "model_endpoint",
    "model_label",
    "model_name",
    "parse_model_spec",
    "redact",
    "redact_argv",
    "redact_with",
    "redacted_json",
    "run_sync",
    "secret_values",
    "slugify",
    "split_base_url",
    "strip_credentials",
    "strip_userinfo",
]
