"""Helpers shared by the tasks tests (a uniquely named module: `conftest` is ambiguous
when several test folders, each with its own conftest.py, run in one pytest session)."""

from __future__ import annotations

import textwrap
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# the smallest valid native task: tests change one key of it
BASE_YAML = """\
task_id: t
suite: golden
description: d
inputs:
  prompt: hello
graders:
  - type: contains
    value: hi
tracked_metrics: [pass^k]
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path
