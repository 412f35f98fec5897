"""`recall_sessions`: find past agent sessions, the notes Scribe keeps in its
Agent-Sessions folder, by title, by a file they touched, or by project.

Like Scribe it returns summaries (title, date, path, files) and leaves the conversation
to `read_file` on the returned `historyPath`. Scribe orders sessions by the file's
modification time; a trial's workspace is a fresh copy, so here the order is the
session's own `last_active` (else `created`) frontmatter date, newest first, then path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trialrun.tools._frontmatter import FrontmatterError, parse_frontmatter, plain
from trialrun.tools._tool import ToolContext, ToolError, tool
from trialrun.tools.vault._common import read_text, rel, root_of, walk
from trialrun.tools.vault._state_folder import SESSIONS_FOLDER, existing_folder

MAX_SESSIONS = 50  # Scribe looks at the 50 most recent sessions
MAX_FILES_SHOWN = 20
HINT = "Use read_file on historyPath to see the full conversation from a past session."


@dataclass(frozen=True, slots=True)
class SessionNote:
    title: str
    date: str
    history_path: str
    project: str | None
    accessed_files: tuple[str, ...]
    context_files: tuple[str, ...]

    def summary(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "date": self.date,
            "historyPath": self.history_path,
            "project": self.project,
            "filesAccessed": list(self.accessed_files[:MAX_FILES_SHOWN]),
            "contextFiles": list(self.context_files),
        }


def _ref(value: Any) -> str | None:
    """A wikilink `[[Note|alias]]` or `[[Note#part]]` as its bare target; text as is."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.startswith("[[") and text.endswith("]]"):
        return text[2:-2].split("|")[0].split("#")[0].strip() or None
    return text


def _refs(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else []
    return tuple(ref for ref in map(_ref, items) if ref)


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    out = plain(value)
    return out if isinstance(out, str) else str(out)


def _session(ctx: ToolContext, path: Path) -> SessionNote:
    try:
        meta = parse_frontmatter(read_text(path)) or {}
    except (ToolError, FrontmatterError, OSError):
        meta = {}  # an unreadable session still shows up, by its file name
    return SessionNote(
        title=_text(meta.get("title")) or path.stem,
        date=_text(meta.get("last_active")) or _text(meta.get("created")) or "",
        history_path=rel(ctx, path),
        project=_ref(meta.get("project")),
        accessed_files=_refs(meta.get("accessed_files")),
        context_files=_refs(meta.get("context_files")),
    )


def _newest_first(sessions: list[SessionNote]) -> list[SessionNote]:
    by_path = sorted(sessions, key=lambda s: s.history_path)
    return sorted(by_path, key=lambda s: s.date, reverse=True)


def _touches(session: SessionNote, file_path: str) -> bool:
    wanted = file_path.lower()
    return any(
        ref.lower() in wanted or wanted in ref.lower()
        for ref in session.accessed_files + session.context_files
    )


@tool
def recall_sessions(
    ctx: ToolContext,
    query: str | None = None,
    filePath: str | None = None,
    project: str | None = None,
    limit: int | None = None,
) -> str:
    """Search past agent sessions for conversations about specific files, projects or topics.

    Returns session summaries (title, date, files accessed, project) as JSON, newest first.
    Use it when the user asks about prior work, decisions or discussions. To see a past
    session's full conversation, use read_file on its historyPath.

    Args:
        query: Text matched against session titles (case-insensitive substring).
        filePath: Find sessions that accessed this file, e.g. "notes/meeting.md".
        project: Find sessions linked to this project (its name or note path).
        limit: Maximum number of sessions to return (default 10, at most 50).
    """
    if limit is not None and limit < 1:
        raise ToolError("recall_sessions: limit must be at least 1")
    most = min(limit or 10, MAX_SESSIONS)
    folder = existing_folder("recall_sessions", ctx, SESSIONS_FOLDER)
    files = [] if folder is None else [
        Path(entry)
        for entry, is_dir in walk(root_of(ctx), folder, recursive=False)
        if not is_dir and entry.lower().endswith(".md")
    ]
    recent = _newest_first([_session(ctx, f) for f in files])[:MAX_SESSIONS]
    matched = recent
    if filePath:
        matched = [s for s in matched if _touches(s, filePath)]
    if project:
        wanted = project.lower()
        matched = [s for s in matched if s.project and wanted in s.project.lower()]
    if query:
        matched = [s for s in matched if query.lower() in s.title.lower()]
    shown = matched[:most]
    result: dict[str, Any] = {
        "sessions": [s.summary() for s in shown],
        "count": len(shown),
        "totalMatched": len(matched),
        "hint": HINT,
    }
    if not matched:
        result["hint"] = (
            f"No past session matches; {len(recent)} session(s) are in {SESSIONS_FOLDER}/. "
            "Call recall_sessions without arguments to list the most recent ones."
            if recent
            else f"No past sessions are stored ({SESSIONS_FOLDER}/ holds none)."
        )
    return json.dumps(result, ensure_ascii=False, indent=2)
