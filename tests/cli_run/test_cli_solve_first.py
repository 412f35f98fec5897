"""The end of `trialrun run` leads with solve^k; pass^k says it only means "completed".

A script that answers every task wrongly finishes every trial: pass^k is 100 %, solve^k
0 %. The issue's newcomer read the first figure, "pass^k 100.0%", as success. Now the
table and the headline give solve^k first, pass^k is labelled `pass^k (completed)`, and
a legend under the table defines both.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TASK = """\
task_id: {task_id}
suite: golden
description: answer the question
inputs: {{prompt: "What is the secret word?"}}
graders: [{{type: contains, value: pineapple}}]
tracked_metrics: [pass^k]
trials: {{k: 2}}
"""
WRONG = "default:\n  - content: I have no idea.\n"
LEGEND = (
    "pass^k (completed): every trial finished without a harness error or timeout; "
    "solve^k: every trial got the right outcome"
)


def _run(tmp_path: Path) -> str:
    suite = tmp_path / "suite"
    suite.mkdir()
    for i in range(3):
        (suite / f"t{i}.yaml").write_text(TASK.format(task_id=f"t{i}"))
    (tmp_path / "wrong.yaml").write_text(WRONG)
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(suite), "-m", "scripted:wrong.yaml",
         "--out", "o"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_script_solving_nothing_reads_as_solving_nothing_first(tmp_path):
    out = _run(tmp_path)
    lines = out.splitlines()
    [header] = [line for line in lines if "task" in line and "solved/n" in line]
    assert header.index("solve^k") < header.index("pass^k (completed)")
    [headline] = [line for line in lines if "pass^k (completed) 100.0%" in line]
    assert headline.startswith("solve^k 0.0% over 3 tasks")
    assert LEGEND in lines
    assert lines.index(LEGEND) < lines.index(headline)  # under the table, before the rates
    # no bare "pass^k <rate>" anywhere: every pass^k figure says what it means
    assert "pass^k 100.0%" not in out
