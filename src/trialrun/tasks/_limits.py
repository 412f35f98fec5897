"""The documented limits of a task file, so no file can exhaust the machine.

A file over `MAX_FILE_BYTES` (or `[tasks] max_file_bytes` in trialrun.toml) is refused
before it is parsed; a document with more than `MAX_NODES` values or nested deeper than
`MAX_DEPTH` is refused whole; a list longer than `MAX_LIST_ITEMS` is one problem (and only
its first items are checked further). Counts are strict integers (never booleans) with a
maximum each, so `k: 1e40` or `k: true` can't validate.
"""

from __future__ import annotations

import re
from typing import Any

from trialrun.config import ProjectConfig
from trialrun.errors import ConfigError, UserError
from trialrun.tasks._problems import FieldPath, SourceError

MAX_FILE_BYTES = 10 * 1024 * 1024  # default; `[tasks] max_file_bytes` in trialrun.toml
MAX_NODES = 50_000  # values in one file (YAML aliases expanded)
MAX_DEPTH = 100  # nesting of mappings and lists
MAX_LIST_ITEMS = 1000  # tasks per file, graders, tags, inputs lists, …

MAX_K = 10_000  # trials per task (and `-k`)
MAX_TURNS = 10_000  # max_turns / max_steps
MAX_TOOL_CALLS = 100_000  # tool_call_budget / max_tool_calls, faults' on_call
MAX_TOKENS = 100_000_000
MAX_SECONDS = 86_400.0  # timeout_s / max_latency_s: one day
MAX_COST_USD = 1_000_000.0

TASK_ID_MAX = 128
TASK_ID_PATTERN = r"^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def task_id_problem(value: str) -> str | None:
    """Why `value` can't be a task id (it names files and folders of a run), or None."""
    if _TASK_ID.fullmatch(value) and ".." not in value:
        return None
    shown = value if len(value) <= 60 else value[:57] + "..."
    return (
        f"task id {shown!r} is not a safe file name: use 1-{TASK_ID_MAX} letters, digits, "
        "'.', '_' or '-', starting with a letter or digit, without '..'"
    )


def check_k_option(k: Any, flag: str = "-k") -> None:
    """`-k` / `RunConfig.k`: None, or a whole number from 1 to MAX_K (UserError otherwise)."""
    if k is None:
        return
    if isinstance(k, bool) or not isinstance(k, int):
        raise UserError(
            f"k must be a whole number from 1 to {MAX_K}", place=flag, value=repr(k)
        )
    if k < 1:
        raise UserError("k must be at least 1", place=flag, value=str(k))
    if k > MAX_K:
        raise UserError(
            f"k must be at most {MAX_K} (trialrun's limit on trials per task)",
            place=flag, value=str(k),
        )


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def file_size_limit(explicit: int | None, config: ProjectConfig) -> int:
    """The size limit for task files: `explicit`, else `config`'s, else the default."""
    if explicit is not None:
        if not _whole(explicit):
            raise UserError(
                f"max_file_bytes={explicit!r}: must be a positive whole number of bytes"
            )
        return explicit
    value = config.section("tasks").get("max_file_bytes", MAX_FILE_BYTES)
    if not _whole(value):
        raise ConfigError(
            f"must be a positive whole number of bytes (got {value!r})",
            place="[tasks] max_file_bytes", source=config.path,
        )
    limit: int = value
    return limit


def check_shape(data: Any) -> list[tuple[FieldPath, str]]:
    """Walk a parsed document once (no recursion): raise SourceError when it has too many
    values or is nested too deep; return one issue per over-long list, each cut to
    MAX_LIST_ITEMS so later checks stay cheap."""
    issues: list[tuple[FieldPath, str]] = []
    nodes = 0
    stack: list[tuple[Any, FieldPath]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise SourceError(f"too many values (over {MAX_NODES}); a task file holds far fewer")
        if len(path) > MAX_DEPTH:
            raise SourceError(f"nested deeper than {MAX_DEPTH} levels; flatten the data")
        if isinstance(node, dict):
            stack.extend((value, (*path, key)) for key, value in node.items())
        elif isinstance(node, list):
            if len(node) > MAX_LIST_ITEMS:
                issues.append(
                    (path, f"{len(node)} items: a list may hold at most {MAX_LIST_ITEMS}")
                )
                del node[MAX_LIST_ITEMS:]
            stack.extend((value, (*path, i)) for i, value in enumerate(node))
    return issues
