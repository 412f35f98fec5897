"""Ctrl-C while a `command` grader runs ends the run at once (exit 130, finished trials
kept) and leaves none of the command's processes behind: command graders are awaited on
the run's event loop, not in a thread the interrupt cannot reach."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.timeout(120)

TASK = """\
task_id: {id}
suite: golden
description: graded by a command
inputs: {{prompt: go}}
graders: [{{type: command, run: "{run}", timeout_s: 900}}]
tracked_metrics: [pass^k]
trials: {{k: 1}}
"""


def _sleepers(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if marker in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def test_ctrl_c_during_a_command_grader_ends_the_run(tmp_path: Path) -> None:
    marker = "sleep 617.5"
    (tmp_path / "a-fast.yaml").write_text(TASK.format(id="a-fast", run="true"))
    (tmp_path / "b-slow.yaml").write_text(TASK.format(id="b-slow", run=marker))
    script = tmp_path / "script.yaml"
    script.write_text("default:\n  - content: done\n")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from trialrun.cli import main; main()", "run",
         str(tmp_path / "a-fast.yaml"), str(tmp_path / "b-slow.yaml"),
         "-m", f"scripted:{script}", "-j", "1", "--out", str(out)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        for _ in range(1200):
            if _sleepers(marker) or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert _sleepers(marker), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    [run_dir] = [p for p in out.iterdir() if p.is_dir()]
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [line["task_id"] for line in lines] == ["a-fast"]
    for _ in range(100):  # the sweep has run before the exit; give the kernel a moment
        if not _sleepers(marker):
            break
        time.sleep(0.05)
    assert not _sleepers(marker)
