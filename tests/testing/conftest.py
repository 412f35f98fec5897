"""pytester for the plugin's own tests; the example evals and their scripted agent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pytest"


@pytest.fixture
def example(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """examples/pytest copied into a pytester folder; RUN_EVALS unset."""
    monkeypatch.delenv("RUN_EVALS", raising=False)
    monkeypatch.delenv("TRIALRUN_EVAL_MODEL", raising=False)
    for name in ("test_behaviour.py", "agent.yaml"):
        shutil.copy(EXAMPLE / name, pytester.path / name)
    return pytester
