"""A tiny suite written in tmp_path: two golden tasks, one fixture, scripts that solve/fail."""

from __future__ import annotations

from pathlib import Path

import pytest

READ_TASK = """
task_id: read-note
suite: golden
tier: T1
tags: [read]
description: read a note and answer
inputs:
  prompt: What is the secret word in note.md?
environment:
  fixture: basic
graders:
  - type: expectedTools
    tools: [read_file]
  - type: contains
    value: pineapple
tracked_metrics: [pass^k]
"""

WRITE_TASK = """
task_id: write-note
suite: golden
tier: T2
tags: [write]
description: create a note
inputs:
  prompt: Create hello.md saying hi
environment:
  fixture: basic
  budgets: {tool_call_budget: 1}
graders:
  - type: fileContains
    path: hello.md
    value: hi
  - type: forbiddenTools
    tools: [delete_file]
tracked_metrics: [pass^k]
trials: {k: 2}
"""

GOOD = """
tasks:
  read-note:
    - tool_calls: [{name: read_file, arguments: {path: note.md}}]
    - content: The secret word is pineapple.
  write-note:
    - tool_calls: [{name: write_file, arguments: {path: hello.md, content: hi there}}]
    - content: done
"""

BAD = """
tasks:
  read-note:
    - content: I did not look.
  write-note:
    - tool_calls: [{name: delete_file, arguments: {path: note.md}}]
    - tool_calls: [{name: write_file, arguments: {path: other.md, content: nope}}]
    - content: done
"""


@pytest.fixture()
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    (root / "fixtures" / "basic").mkdir(parents=True)
    (root / "fixtures" / "basic" / "note.md").write_text("The secret word is pineapple.\n")
    (root / "read.yaml").write_text(READ_TASK)
    (root / "write.yaml").write_text(WRITE_TASK)
    (root / "good.yaml").write_text(GOOD)  # a script file: skipped by the loader by shape
    (root / "bad.yaml").write_text(BAD)
    return root
