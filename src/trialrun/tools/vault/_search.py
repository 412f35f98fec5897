"""Search tools: find files by name (glob or substring) and by content (text or regex).

Content search uses the `regex` package (Python's dialect, a superset of `re`) because
it can stop a search: one call's matching gets REGEX_TIMEOUT_S in all, after which the
result is a "pattern too slow" error. With `re`, a pattern such as `(a|aa)+$` backtracks
for hours while holding the GIL, and nothing else in the process runs. Compiling is
bounded too: `a{4294967294}` would take gigabytes, and is a tool error instead.
"""

from __future__ import annotations

import fnmatch
import os
import time
from pathlib import Path

import regex

from trialrun.core import UnsafeRegex, compile_safe
from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import MAX_SEARCH_BYTES, read_text, rel, root_of, walk

MAX_LINE_CHARS = 300
MAX_HITS_PER_FILE = 20
REGEX_TIMEOUT_S = 10.0  # total matching time of one find_files_by_content call
_GLOB_CHARS = set("*?[")


def _limit(tool_name: str, limit: int | None, default: int) -> int:
    if limit is None:
        return default
    if limit < 1:
        raise ToolError(f"{tool_name}: limit must be at least 1")
    return min(limit, 1000)


@tool
def find_files_by_name(ctx: ToolContext, pattern: str, limit: int | None = None) -> str:
    """Find files whose path matches a name pattern (case-insensitive).

    Args:
        pattern: A glob such as "*.md" or "Projects/*plan*",
            or plain text matched anywhere in the path.
        limit: Maximum number of results (default 50).
    """
    if not pattern or not pattern.strip():
        raise ToolError("find_files_by_name: pattern must not be empty")
    most = _limit("find_files_by_name", limit, 50)
    needle = pattern.strip().lower()
    is_glob = bool(_GLOB_CHARS & set(needle))
    root = root_of(ctx)
    hits: list[str] = []
    total = 0
    for entry, is_dir in walk(root, root):
        if is_dir:
            continue
        path = rel(ctx, Path(entry))
        lowered = path.lower()
        name = lowered.rsplit("/", 1)[-1]
        if is_glob:
            ok = fnmatch.fnmatchcase(lowered, needle) or fnmatch.fnmatchcase(name, needle)
        else:
            ok = needle in lowered
        if ok:
            total += 1
            if len(hits) < most:
                hits.append(path)
    if not hits:
        return f"No files match {pattern!r}"
    if total > len(hits):
        hits.append(f"[... {total - len(hits)} more; raise limit to see them]")
    return "\n".join(hits)


def _search(rx: regex.Pattern, line: str, deadline: float) -> bool:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    # concurrent: the GIL is released while matching, so the event loop stays responsive
    return rx.search(line, timeout=left, concurrent=True) is not None


def _clip(line: str) -> str:
    line = line.rstrip("\r")
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"


@tool
def find_files_by_content(
    ctx: ToolContext,
    query: str,
    caseSensitive: bool = False,
    useRegex: bool = False,
    limit: int | None = None,
    contextLines: int = 0,
) -> str:
    """Search the text of every file; returns "path:line: text" for each matching line.

    Args:
        query: Text (or a regular expression when useRegex is true) to look for.
        caseSensitive: Match letter case exactly (default false).
        useRegex: Treat query as a Python regular expression (default false).
        limit: Maximum number of matching files (default 20).
        contextLines: Lines of context to show before and after each match (default 0, max 10).
    """
    if not query:
        raise ToolError("find_files_by_content: query must not be empty")
    most = _limit("find_files_by_content", limit, 20)
    context = max(0, min(int(contextLines or 0), 10))
    flags = 0 if caseSensitive else regex.IGNORECASE
    try:  # checked for size and compiled under a memory budget (trialrun.core)
        rx = compile_safe(query if useRegex else regex.escape(query), flags)
    except UnsafeRegex as exc:
        raise ToolError(f"find_files_by_content: invalid regular expression: {exc}") from None
    budget = REGEX_TIMEOUT_S
    deadline = time.monotonic() + budget
    root = root_of(ctx)
    blocks: list[str] = []
    files = 0
    more_files = 0
    for entry, is_dir in walk(root, root):
        if is_dir:
            continue
        try:
            if os.path.getsize(entry) > MAX_SEARCH_BYTES:
                continue
            text = read_text(Path(entry))
        except (OSError, ToolError):
            continue
        lines = text.split("\n")
        try:
            matched = [i for i, line in enumerate(lines) if _search(rx, line, deadline)]
        except TimeoutError:
            raise ToolError(
                f"find_files_by_content: pattern too slow: {query!r} ran past the {budget:g}s "
                "search limit; simplify it (avoid overlapping repeats such as (a|aa)+)"
            ) from None
        if not matched:
            continue
        if files >= most:
            more_files += 1
            continue
        files += 1
        path = rel(ctx, Path(entry))
        out: list[str] = []
        shown: set[int] = set()
        last = -2
        for i in matched[:MAX_HITS_PER_FILE]:
            lo, hi = max(0, i - context), min(len(lines) - 1, i + context)
            for j in range(lo, hi + 1):
                if j in shown:
                    continue
                if context and last >= 0 and j > last + 1:
                    out.append("--")
                sep = ":" if j in matched else "-"
                out.append(f"{path}{sep}{j + 1}{sep} {_clip(lines[j])}")
                shown.add(j)
                last = j
        if len(matched) > MAX_HITS_PER_FILE:
            out.append(f"{path}: [... {len(matched) - MAX_HITS_PER_FILE} more matches]")
        blocks.append("\n".join(out))
    if not blocks:
        return f"No files contain {query!r}"
    if more_files:
        blocks.append(f"[... {more_files} more files match; raise limit to see them]")
    return ("\n--\n" if context else "\n").join(blocks)
