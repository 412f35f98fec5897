"""pytester for the plugin's own tests; the example evals and their scripted agent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

# Imported here, before any in-process pytester run: pytester drops the modules a run
# imported when it ends, and a second import of ruamel.yaml or SQLAlchemy next to the
# first one's objects breaks them (a real session imports each once).
import trialrun.history  # noqa: F401
import trialrun.runner  # noqa: F401
import trialrun.tasks
import trialrun.testing._rig  # noqa: F401
import trialrun.testing._tasks  # noqa: F401

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pytest"
# ruamel.yaml loads parts of itself on first parse: parse once before any pytester run
trialrun.tasks.load_tasks([EXAMPLE.parent / "tasks" / "golden"])


@pytest.fixture
def example(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """examples/pytest copied into a pytester folder; RUN_EVALS unset."""
    monkeypatch.delenv("RUN_EVALS", raising=False)
    monkeypatch.delenv("TRIALRUN_EVAL_MODEL", raising=False)
    for name in ("test_behaviour.py", "agent.yaml"):
        shutil.copy(EXAMPLE / name, pytester.path / name)
    return pytester
