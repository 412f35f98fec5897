"""OpenJarvis scorers that run the model's code (LiveCodeBench's tests, the coding
use cases' `exec`) score inside trialrun's jail: a child Python in bubblewrap with no
network, this process's environment (API keys) left out, only a scratch folder writable.
Without bubblewrap the child still runs apart, without the keys, and is swept at the end.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from trialrun.sandbox import run_contained

# the benchmarks whose scorer executes the model's code and asks no judge
CODE_RUNNING = frozenset({"livecodebench", "coding_task", "coding_assistant"})
TIMEOUT_S = 600.0
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TZ")


def _python_paths() -> list[str]:
    return [p for p in sys.path if p and os.path.isdir(p)]


async def score_contained(benchmark: str, record: Any, answer: str) -> tuple[Any, dict[str, Any]]:
    """(is_correct, metadata) from the scorer run in the jail; a failure of the child is
    undetermined, its reason in the metadata."""
    paths = _python_paths()
    with tempfile.TemporaryDirectory(prefix="trialrun-ojscore-") as scratch:
        given = {"benchmark": benchmark, "record": asdict(record), "answer": answer}
        Path(scratch, "score.json").write_text(json.dumps(given, default=str), encoding="utf-8")
        env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
        env.update(HOME=scratch, PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1")
        outcome = await run_contained(
            [sys.executable, "-m", "trialrun.benchmarks._openjarvis_child", "score.json"],
            scratch,
            TIMEOUT_S,
            env=env,
            readable=sorted({sys.prefix, sys.base_prefix, *paths}),
        )
    lines = outcome.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        is_correct, metadata = json.loads(lines[-1])
    except (IndexError, ValueError):
        why = "timed out" if outcome.timed_out else f"exit {outcome.exit_code}"
        tail = outcome.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        return None, {"scorer_error": f"jailed scorer {why}: {' '.join(tail)[:300]}"}
    return is_correct, {**dict(metadata or {}), "scored_in": outcome.sandbox}
