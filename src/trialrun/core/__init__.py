"""Shared types at the bottom of the house: every package may import these, and this
package imports nothing of trialrun but `trialrun.errors`.

Chat messages, tool-call records, verdicts, model specs, the name registry behind the
`@grader`/`@tool_pack`/`@model_provider` decorators, object loading and the git checkout
(commit, branch) live here so that the packages above (models, tools, graders, agents,
runner, rundir, history) agree on them without importing each other.
"""

from trialrun.core._fast_json import compact_json
from trialrun.core._files import (
    FileRefused,
    copy_regular,
    file_kind,
    iter_lines,
    link_beneath,
    open_beneath,
    open_fd,
    open_regular,
    over_limit,
    read_line,
    read_regular,
    size_text,
)
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
from trialrun.core._regex_shape import (
    MAX_EXPANSION,
    MAX_GROUP_DEPTH,
    MAX_PATTERN_CHARS,
    regex_shape_problem,
)
from trialrun.core._registry import Registry
from trialrun.core._relative_path import (
    RELATIVE_PATH_PATTERN,
    RELATIVE_PATH_RULE,
    path_escape,
    relative_path_problem,
)
from trialrun.core._safe_regex import UnsafeRegex, compile_safe, regex_problem
from trialrun.core._secrets import (
    KEY_VARIABLES,
    MASK,
    environment_secrets,
    may_hold_secret,
    redact,
    redact_argv,
    redact_with,
    secret_values,
    strip_credentials,
    strip_userinfo,
)
from trialrun.core._shared_values import MAX_SHARED, Interner, SharedValues
from trialrun.core._threads import run_sync

__all__ = [
    "MAX_SHARED",
    "Interner",
    "SharedValues",
    "CI_BRANCH_VARIABLES",
    "FileRefused",
    "KEY_VARIABLES",
    "MAX_EXPANSION",
    "MAX_GROUP_DEPTH",
    "MAX_PATTERN_CHARS",
    "MASK",
    "Message",
    "ModelSpec",
    "RELATIVE_PATH_PATTERN",
    "RELATIVE_PATH_RULE",
    "Registry",
    "ToolCallRecord",
    "ToolSpec",
    "UnsafeRegex",
    "Verdict",
    "ci_branch",
    "compact_json",
    "compile_safe",
    "copy_regular",
    "file_kind",
    "git_branch",
    "git_commit",
    "git_toplevel",
    "is_unpinned",
    "iter_lines",
    "link_beneath",
    "load_object",
    "environment_secrets",
    "may_hold_secret",
    "model_endpoint",
    "model_label",
    "model_name",
    "open_beneath",
    "open_fd",
    "open_regular",
    "over_limit",
    "parse_model_spec",
    "path_escape",
    "read_line",
    "read_regular",
    "redact",
    "redact_argv",
    "redact_with",
    "redacted_json",
    "regex_problem",
    "regex_shape_problem",
    "relative_path_problem",
    "run_sync",
    "secret_values",
    "size_text",
    "slugify",
    "split_base_url",
    "strip_credentials",
    "strip_userinfo",
]
