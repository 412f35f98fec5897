"""The tool list most OpenJarvis suite files give a benchmark (`think`, `calculator`,
`code_interpreter`, `web_search`, `file_read`) runs on the `jarvis-agent` backend: a GAIA
record in GAIA's layout, solved by a scripted model that thinks, reads the attached file
with code and meets web_search's tool error (no provider configured)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trialrun.rundir import RunDir
from trialrun.sandbox import jail_available

SUITE = """
[meta]
name = "oj-tools"
[run]
output_dir = "out"
[[models]]
name = "agent.json"
provider = "scripted"
[[benchmarks]]
name = "gaia"
backend = "jarvis-agent"
tools = ["think", "calculator", "code_interpreter", "web_search", "file_read"]
dataset = "gaia/metadata.jsonl"
"""

RECORD = {
    "task_id": "g-file",
    "Question": "What is the sum of the totals in the attached file?",
    "Level": 1,
    "Final answer": "42",
    "file_name": "sales.csv",
    "file_path": "sales.csv",
    "Annotator Metadata": {"Steps": "add"},
}
CODE = "import csv\nprint(sum(int(r['total']) for r in csv.DictReader(open('sales.csv'))))"
TURNS = [
    {"tool_calls": [{"name": "think", "arguments": {"thought": "Sum the column with code."}}]},
    {"tool_calls": [{"name": "web_search", "arguments": {"query": "sales totals"}}]},
    {"tool_calls": [{"name": "code_interpreter", "arguments": {"code": CODE}}]},
    {"content": "FINAL ANSWER: 42"},
]


@pytest.mark.skipif(not jail_available(), reason="bwrap does not work here")
def test_openjarvis_tool_list_on_the_agent_backend(tmp_path: Path) -> None:
    gaia = tmp_path / "gaia"
    gaia.mkdir()
    (gaia / "sales.csv").write_text("month,total\njan,40\nfeb,2\n")
    (gaia / "metadata.jsonl").write_text(json.dumps(RECORD) + "\n")
    (tmp_path / "agent.json").write_text(json.dumps({"tasks": {"gaia-g-file": TURNS}}))
    (tmp_path / "suite.toml").write_text(SUITE)
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", "suite.toml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = (tmp_path / "out" / "runs").glob("*/*")
    reader = RunDir.open(run_dir)
    (line,) = reader.results()
    assert line.solve is True
    assert [(c["name"], c["ok"]) for c in line.tool_calls] == [
        ("think", True), ("web_search", False), ("code_interpreter", True),
    ]
    texts = reader.transcript(line).tool_results
    assert texts[0] == "Thought recorded (25 characters)."
    assert texts[1].startswith("web_search: no provider configured")
    assert texts[2] == "=== STDOUT ===\n42"
