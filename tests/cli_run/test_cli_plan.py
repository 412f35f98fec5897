"""`trialrun plan`: power before the run, from an assumed rate or a baseline's rates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_support import cli_process

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "golden"


def test_plan_prints_the_suite_line_and_each_task(tmp_path) -> None:
    proc = cli_process("plan", str(EXAMPLES), "-k", "5", "--rate", "0.95", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("power: ") and "at k = 5 can detect" in lines[0]
    assert lines[1].startswith("suite: k needed for a uniform 10-point drop")
    assert any("rate 95% (assumed)" in line for line in lines[2:])


def test_plan_json_and_bad_rate(tmp_path) -> None:
    proc = cli_process("plan", str(EXAMPLES), "-k", "3", "--json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["tasks"] and all(t["k"] == 3 for t in doc["tasks"])
    assert doc["suite_method"].startswith("exact in small suites")
    assert doc["set_aside"] == []
    bad = cli_process("plan", str(EXAMPLES), "--rate", "1.5", cwd=tmp_path)
    assert bad.returncode == 2 and "--rate 1.5" in bad.stderr


def test_plan_sets_aside_a_task_at_0_percent_in_the_baseline(tmp_path: Path) -> None:
    """The issue's case: one task at 0 % in the baseline made plan say no drop is detectable."""
    fixture = Path(__file__).resolve().parents[1] / "rundir/data/v0.1.0/baselines"
    baseline = json.loads((fixture / "scripted-examples-scripts-good.yaml.json").read_text())
    for entry in baseline["tasks"]:
        entry["solved"] = 0 if entry["task_id"] == "close-project" else entry["n"]
    (tmp_path / "baseline.json").write_text(json.dumps(baseline))
    proc = cli_process(
        "plan", str(EXAMPLES), "-k", "10", "--baseline", "baseline.json", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("power: 5 task(s) at k = 10 can detect a uniform drop of")
    assert "set aside: close-project (0% in baseline: no drop to detect)" in lines
    assert not any(line.startswith("  close-project:") for line in lines)
    assert any(line.startswith("  read-capital: k = 10, rate 100% (baseline)") for line in lines)


def test_run_prints_the_suite_power_line_first(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(root / "examples/tasks"),
         "-m", f"scripted:{root / 'examples/scripts/good.yaml'}", "--out", "out"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith("power: 12 task(s) at k = ") and "can detect" in first
    assert "assumed 90% solve rate" in first
