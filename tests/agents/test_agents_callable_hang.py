"""A synchronous `--agent` that never returns fails its trial on the task's timeout, and
the run still ends: the agent runs on a daemon thread that exit does not wait for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

TASK = """\
task_id: hangs
suite: golden
description: the agent never answers
inputs: {prompt: go}
environment: {sandbox: none, budgets: {timeout_s: 1}}
graders: [{type: contains, value: done}]
tracked_metrics: [pass^k]
trials: {k: 1}
"""


def test_a_hung_sync_agent_times_out_and_the_run_ends(tmp_path: Path) -> None:
    (tmp_path / "task.yaml").write_text(TASK)
    (tmp_path / "stuck.py").write_text(
        "import time\n\ndef agent(task, workspace, tools, model):\n    time.sleep(3600)\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", "task.yaml", "--agent", "stuck.py:agent",
         "--out", "out"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [run_dir] = list((tmp_path / "out").iterdir())
    [line] = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert line["pass"] is False and line["error"]["kind"] == "timeout"
