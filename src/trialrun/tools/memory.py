"""The `memory_store`, `memory_search` and `memory_retrieve` tool packs: a memory that
lives for one trial.

Entries are kept in the trial's `ToolContext` (never on disk, never in the workspace), so
nothing leaks between trials and graders of the workspace see no trace of it. Search is
keyword overlap, deterministic: an entry's score is the share of the query's distinct
words (lower-cased `\\w+`) it holds; ties keep the order entries were stored in. The
parameters and result shapes are OpenJarvis's (`content`, `source`; `query`, `top_k`):
`memory_search` numbers its hits with their sources, `memory_retrieve` separates them
with `---`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from trialrun.errors import ToolError
from trialrun.tools._options import no_options
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import tool_pack

MAX_ENTRY_CHARS = 20_000
MAX_ENTRIES = 1_000
MAX_TOP_K = 50
_MEMORY_KEY = "memory"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    content: str
    source: str
    words: frozenset[str]


@dataclass(frozen=True, slots=True)
class MemoryHit:
    score: float
    entry: MemoryEntry


def words_of(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def trial_memory(ctx: ToolContext) -> list[MemoryEntry]:
    """This trial's entries (created on first use)."""
    found = ctx.extra.get(_MEMORY_KEY)
    if not isinstance(found, list):
        found = ctx.extra[_MEMORY_KEY] = []
    return found


def search(entries: list[MemoryEntry], query: str, top_k: int) -> list[MemoryHit]:
    """The `top_k` entries sharing most of the query's words (none sharing any)."""
    wanted = words_of(query)
    if not wanted:
        return []
    hits = [MemoryHit(len(wanted & e.words) / len(wanted), e) for e in entries]
    ranked = sorted((h for h in hits if h.score > 0), key=lambda h: -h.score)  # stable
    return ranked[:top_k]


@tool
def memory_store(ctx: ToolContext, content: str, source: str | None = None) -> str:
    """Store content in memory for later retrieval with memory_search.

    Args:
        content: The text content to store.
        source: Optional source identifier for the content.
    """
    if not isinstance(content, str) or not content.strip():
        raise ToolError("memory_store: content is empty; give the text to remember")
    if len(content) > MAX_ENTRY_CHARS:
        raise ToolError(
            f"memory_store: content is {len(content)} characters; store at most "
            f"{MAX_ENTRY_CHARS} per entry"
        )
    entries = trial_memory(ctx)
    if len(entries) >= MAX_ENTRIES:
        raise ToolError(f"memory_store: memory is full ({MAX_ENTRIES} entries)")
    entries.append(MemoryEntry(content, source or "", words_of(content)))
    return f"Stored memory entry {len(entries)} ({len(content)} characters)."


def _hits(tool_name: str, ctx: ToolContext, query: str, top_k: int) -> list[MemoryHit]:
    if not isinstance(query, str) or not query.strip():
        raise ToolError(f"{tool_name}: the query is empty; give words to look for")
    if not 1 <= top_k <= MAX_TOP_K:
        raise ToolError(f"{tool_name}: top_k must be between 1 and {MAX_TOP_K}")
    return search(trial_memory(ctx), query, top_k)


@tool
def memory_search(ctx: ToolContext, query: str, top_k: int = 5) -> str:
    """Search memory for content relevant to a query; results with scores and sources.

    Args:
        query: The search query.
        top_k: Number of results (default 5).
    """
    hits = _hits("memory_search", ctx, query, top_k)
    if not hits:
        return "No results found."
    lines = []
    for rank, hit in enumerate(hits, 1):
        source = f" (source: {hit.entry.source})" if hit.entry.source else ""
        lines.append(f"{rank}. [{hit.score:.2f}]{source} {hit.entry.content}")
    return "\n".join(lines)


@tool
def memory_retrieve(ctx: ToolContext, query: str, top_k: int = 5) -> str:
    """Retrieve relevant content from memory.

    Args:
        query: The search query.
        top_k: Number of results to return (default 5).
    """
    hits = _hits("memory_retrieve", ctx, query, top_k)
    if not hits:
        return "No results found."
    return "\n---\n".join(f"[{hit.score:.2f}] {hit.entry.content}" for hit in hits)


@tool_pack("memory_store", no_options("memory_store"))
def memory_store_pack(options: dict[str, Any]) -> list[Tool]:
    return [memory_store]


@tool_pack("memory_search", no_options("memory_search"))
def memory_search_pack(options: dict[str, Any]) -> list[Tool]:
    return [memory_search]


@tool_pack("memory_retrieve", no_options("memory_retrieve"))
def memory_retrieve_pack(options: dict[str, Any]) -> list[Tool]:
    return [memory_retrieve]
