"""A suite killed with SIGKILL mid-run keeps every finished record; the same command
then resumes the pair's run folder and finishes it, each record exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchmarks_support import SUPERGPQA_ROWS, write_jsonl

SUITE = """
[meta]
name = "killed"
[run]
output_dir = "out"
max_workers = 1
[[models]]
name = "slow.yaml"
provider = "scripted"
[[benchmarks]]
name = "supergpqa"
dataset = "sg.jsonl"
"""


def test_kill_then_resume(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    (tmp_path / "slow.yaml").write_text(json.dumps({"default": [{"content": "A", "delay_s": 0.3}]}))
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE)
    records = tmp_path / "out" / "supergpqa_slow.yaml.jsonl"
    args = [sys.executable, "-m", "trialrun", "run", str(suite)]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if records.exists() and records.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    kept = [json.loads(x) for x in records.read_text().splitlines() if x.endswith("}")]
    assert 3 <= len(kept) < len(SUPERGPQA_ROWS)
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "(resumed)" in done.stdout
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    ids = [line["record_id"] for line in lines]
    assert sorted(ids) == sorted(r["uuid"] for r in SUPERGPQA_ROWS)  # each exactly once
    assert {k["record_id"] for k in kept} <= set(ids)
    assert len(list((tmp_path / "out" / "runs" / "supergpqa_slow.yaml").iterdir())) == 1
    summary = json.loads((tmp_path / "out" / "supergpqa_slow.yaml.summary.json").read_text())
    assert (summary["total_samples"], summary["correct"]) == (10, 3)  # "A" is right 3 times
