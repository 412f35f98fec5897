"""find_files_by_content with useRegex: a catastrophic pattern is a bounded tool error.

Python's `re` backtracks exponentially on `(a+)+$` against "a"*40 + "!" and holds the
GIL while it does (no signal handler, no watchdog thread runs): the whole run used to
hang. The search now runs on the `regex` package with a time budget. Each search runs in
a child process whose timeout is the guard; no test looks at the clock.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

LINE = "a" * 40 + "!"

SEARCH = """
import asyncio, json, sys
from pathlib import Path
from trialrun.tools import ToolContext, load_pack
from trialrun.tools.vault import _search
_search.REGEX_TIMEOUT_S = float(sys.argv[2])
[tool] = [t for t in load_pack("vault") if t.name == "find_files_by_content"]
args = json.loads(sys.argv[3])
result = asyncio.run(tool.call(ToolContext(workspace=Path(sys.argv[1]), task_id="t"), args))
print(json.dumps({"ok": result.ok, "content": result.content}))
"""


def search(vault: Path, budget_s: float = 10.0, **arguments) -> dict:
    """Call the tool in a child process: a hang fails the test instead of freezing it."""
    proc = subprocess.run(
        [sys.executable, "-c", SEARCH, str(vault), str(budget_s), json.dumps(arguments)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def slow_vault(vault: Path) -> Path:
    (vault / "notes" / "aaa.md").write_text(f"intro\n{LINE}\nend\n")
    return vault


def test_the_reported_pattern_finishes(slow_vault: Path) -> None:
    result = search(slow_vault, query="(a+)+$", useRegex=True)
    assert result == {"ok": True, "content": "notes/a.md:2: title: A\nnotes/deep/b.md:1: Beta"}


def test_a_catastrophic_pattern_is_a_tool_error_naming_the_limit(slow_vault: Path) -> None:
    result = search(slow_vault, 0.5, query="(a|aa)+$", useRegex=True)
    assert result["ok"] is False
    assert result["content"].startswith("find_files_by_content: pattern too slow: '(a|aa)+$'")
    assert "0.5s" in result["content"]


def test_regex_semantics_stay_pythons(call, slow_vault: Path) -> None:
    hit = call("find_files_by_content", query=r"^alpha\s+again$", useRegex=True)
    assert hit.ok and hit.content == "notes/deep/b.md:2: alpha again"
    case = call("find_files_by_content", query=r"ALPHA", useRegex=True, caseSensitive=True)
    assert case.ok and case.content == "No files contain 'ALPHA'"
    named = call("find_files_by_content", query=r"(?P<w>milk)$", useRegex=True)
    assert named.ok and named.content == "todo.md:1: - [ ] buy milk"
    bad = call("find_files_by_content", query="(unclosed", useRegex=True)
    assert bad.ok is False and "invalid regular expression" in bad.content
    literal = call("find_files_by_content", query="(a+)+$")  # not a regex: plain text
    assert literal.ok and literal.content == "No files contain '(a+)+$'"
