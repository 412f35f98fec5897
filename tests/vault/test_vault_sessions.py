"""recall_sessions: past sessions in gemini-scribe/Agent-Sessions/, found by title, file or
project, newest first by their frontmatter date, as Scribe's JSON summaries."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trialrun.tools import ToolResult

Call = Callable[..., ToolResult]
SESSIONS = "gemini-scribe/Agent-Sessions"


def _session(vault: Path, name: str, **meta: Any) -> None:
    lines = ["---", "type: agent-session"]
    for key, value in meta.items():
        lines.append(f"{key}: {json.dumps(value)}")
    lines += ["---", "", f"# {meta.get('title', name)}", "", "> [!user]+", "> hello", ""]
    path = vault / SESSIONS / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


def _sessions(vault: Path) -> None:
    _session(
        vault, "greenhouse", session_id="s1", title="Greenhouse irrigation planning",
        created="2031-03-02 09:15", last_active="2031-03-02 10:40",
        accessed_files=["[[Garden/greenhouse]]", "[[watering-schedule|schedule]]"],
    )
    _session(
        vault, "budget", session_id="s2", title="Q3 budget review",
        created="2031-04-01 08:00", last_active="2031-04-02 17:00",
        project="[[Projects/Finance#Goals]]", context_files=["[[ledger]]"],
    )
    _session(vault, "untitled-chat", created="2031-01-01 12:00")


def _recall(call: Call, **args: Any) -> dict[str, Any]:
    out = call("recall_sessions", **args)
    assert out.ok, out.content
    return json.loads(out.content)


def test_recall_lists_sessions_newest_first_with_scribes_fields(call: Call, vault: Path) -> None:
    _sessions(vault)
    newest_mtime = (2_000_000_000, 2_000_000_000)  # file times are ignored
    os.utime(vault / SESSIONS / "untitled-chat.md", newest_mtime)
    doc = _recall(call)
    assert [s["title"] for s in doc["sessions"]] == [
        "Q3 budget review", "Greenhouse irrigation planning", "untitled-chat",
    ]
    assert (doc["count"], doc["totalMatched"]) == (3, 3)
    assert doc["hint"] == (
        "Use read_file on historyPath to see the full conversation from a past session."
    )
    budget, greenhouse, _ = doc["sessions"]
    assert budget == {
        "title": "Q3 budget review",
        "date": "2031-04-02 17:00",
        "historyPath": f"{SESSIONS}/budget.md",
        "project": "Projects/Finance",
        "filesAccessed": [],
        "contextFiles": ["ledger"],
    }
    assert greenhouse["filesAccessed"] == ["Garden/greenhouse", "watering-schedule"]
    assert call("read_file", path=greenhouse["historyPath"]).content.startswith("---\n")


def test_recall_filters_by_title_file_and_project(call: Call, vault: Path) -> None:
    _sessions(vault)

    def titles(**args: Any) -> list[str]:
        return [s["title"] for s in _recall(call, **args)["sessions"]]

    assert titles(query="GREENHOUSE irrigation") == ["Greenhouse irrigation planning"]
    assert titles(query="watering") == []  # titles only, as in Scribe
    assert titles(filePath="Garden/greenhouse.md") == ["Greenhouse irrigation planning"]
    assert titles(filePath="ledger") == ["Q3 budget review"]
    assert titles(project="finance") == ["Q3 budget review"]
    assert titles(query="review", project="garden") == []
    limited = _recall(call, limit=1)
    assert (limited["count"], limited["totalMatched"]) == (1, 3)


def test_recall_with_no_match_or_no_sessions_says_so(call: Call, vault: Path) -> None:
    assert _recall(call)["hint"] == (
        f"No past sessions are stored ({SESSIONS}/ holds none)."
    )
    _sessions(vault)
    doc = _recall(call, query="zeppelin")
    assert doc["sessions"] == [] and doc["count"] == 0
    assert doc["hint"].startswith(f"No past session matches; 3 session(s) are in {SESSIONS}/.")


def test_recall_reads_broken_frontmatter_as_an_untitled_session(call: Call, vault: Path) -> None:
    folder = vault / SESSIONS
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (folder / "notes.txt").write_text("not a session")
    (folder / "nested").mkdir()
    (folder / "nested" / "deep.md").write_text("---\ntitle: deep\n---\n")
    [only] = _recall(call)["sessions"]
    assert (only["title"], only["date"]) == ("broken", "")


def test_recall_refuses_bad_limits_and_escaping_folders(
    call: Call, vault: Path, tmp_path: Path
) -> None:
    bad = call("recall_sessions", limit=0)
    assert (bad.ok, bad.content) == (False, "recall_sessions: limit must be at least 1")
    (tmp_path / "elsewhere").mkdir()
    (vault / "gemini-scribe").mkdir()
    (vault / SESSIONS).symlink_to(tmp_path / "elsewhere")
    out = call("recall_sessions")
    assert not out.ok and out.content.startswith("recall_sessions: refused:")
