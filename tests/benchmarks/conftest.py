"""An isolated judge verdict cache per test, and scripted-model files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# a τ-bench checkout in its published shapes: its tasks_test.py files are data, not tests
collect_ignore = ["taubench_fixture"]


@pytest.fixture(autouse=True)
def judge_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh verdict cache per test (subprocesses inherit the variable)."""
    cache = tmp_path / "judge-cache"
    monkeypatch.setenv("TRIALRUN_JUDGE_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test in its own folder: a suite's relative output_dir (and results/) is under
    the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def script(tmp_path: Path):
    """script({task_id: reply | [turns]}, name) → a scripted-model file."""

    def write(replies: dict[str, Any], name: str = "model.yaml") -> Path:
        tasks = {
            task: turns if isinstance(turns, list) else [{"content": turns}]
            for task, turns in replies.items()
        }
        path = tmp_path / name
        path.write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
        return path

    return write
