"""Helpers of the report tests: the CLI in a subprocess, the example runs' record."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import trialrun as _trialrun

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def cli_env() -> dict[str, str]:
    """The environment for a CLI subprocess: it imports the trialrun under test."""
    env = os.environ.copy()
    src = str(Path(_trialrun.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def trialrun(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, env=cli_env(),
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@dataclass
class ExampleRuns:
    root: Path  # the working folder
    results: Path  # results/ with both runs
    bad: Path
    good: Path


def only_new(results: Path, before: set[Path]) -> Path:
    (new,) = [p for p in results.iterdir() if p.is_dir() and p not in before]
    return new
