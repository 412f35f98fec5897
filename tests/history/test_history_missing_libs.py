"""A run on an install without the history libraries still completes: one warning line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# sqlalchemy and alembic made unimportable (fault injection: an install without them)
PROGRAM = """
import sys
sys.modules['sqlalchemy'] = None
sys.modules['alembic'] = None
sys.argv = ['trialrun', *sys.argv[1:]]
from trialrun.cli import main
main()
"""


def test_a_run_without_sqlalchemy_warns_and_keeps_its_results(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRIALRUN_HISTORY"}
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM, "run", str(ROOT / "examples" / "tasks" / "golden"),
         "--model", f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}",
         "--out", "res"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    [warning] = [line for line in proc.stderr.splitlines() if "history" in line]
    assert "sqlalchemy is not installed" in warning and "trialrun[history]" in warning
    [run] = (tmp_path / "res").iterdir()
    assert (run / "summary.json").is_file()
    assert not (tmp_path / ".trialrun").exists()
