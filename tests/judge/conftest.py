"""Shared fixtures for the judge tests: an isolated verdict cache and judge settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trialrun.judge import JudgeSettings


@pytest.fixture
def judge_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> JudgeSettings:
    """A fresh cache folder per test and a short judge timeout (a test hands the settings
    to its judge: `JudgeModel(model, judge_settings)`; a bare model uses the defaults,
    with the cache folder from the environment)."""
    cache = tmp_path / "judge-cache"
    monkeypatch.setenv("TRIALRUN_JUDGE_CACHE_DIR", str(cache))
    return JudgeSettings(cache_dir=cache, timeout_s=0.5)


@pytest.fixture
def write_script(tmp_path: Path):
    """write_script({...}) → a scripted-model file path (JSON)."""
    counter = {"n": 0}

    def write(data: dict[str, Any], name: str | None = None) -> Path:
        counter["n"] += 1
        path = tmp_path / (name or f"judge-{counter['n']}.json")
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return write
