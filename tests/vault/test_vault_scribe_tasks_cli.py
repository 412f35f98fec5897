"""Scribe's memory-write, recall-past-session and skill-activate-apply tasks (and an image
task), in Scribe's own file shape, validate clean and are solved end to end through the CLI
by a scripted model that uses Scribe's tools."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from trialrun.cli import app
from trialrun.rundir import RunDir

DATA = Path(__file__).parent / "data" / "scribe_tools"
runner = CliRunner()

# what each task's tool results must show: the tools ran, on the seeded state
TOOL_RESULTS = {
    "memory-write": ["Memory updated: gemini-scribe/AGENTS.md"],
    "recall-past-session": [
        '"historyPath": "gemini-scribe/Agent-Sessions/beehive-winter-planning.md"',
        "foam board wraps",
    ],
    "skill-activate-apply": ["Skill 'archive-call-number' activated", "`HA-`"],
    "image-embed": ['"wikilink": "![[eval-scratch/attachments/fox.png]]"'],
}


def test_scribe_tool_tasks_validate_without_warnings() -> None:
    result = runner.invoke(app, ["validate", str(DATA), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["warnings"] == [] and doc["problems"] == []
    assert sorted(t["task_id"] for t in doc["tasks"]) == sorted(TOOL_RESULTS)


def test_scribe_tool_tasks_are_solved_by_the_scripted_model(tmp_path: Path) -> None:
    suite = shutil.copytree(DATA, tmp_path / "suite")
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(suite), "--model", f"scripted:{suite / 'solve.yaml'}", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    [run_dir] = [p for p in out.iterdir() if p.is_dir()]
    rows = {t["task_id"]: t for t in json.loads((run_dir / "summary.json").read_text())["tasks"]}
    assert {tid: (row["n"], row["solve_k"]) for tid, row in rows.items()} == {
        tid: (3, 1.0) for tid in TOOL_RESULTS
    }
    reader = RunDir.open(run_dir)
    lines = reader.results()
    assert len(lines) == 12
    for line in lines:
        assert line.solve is True, (line.task_id, line.verdicts)
        results = "\n".join(reader.transcript(line).tool_results)
        for fragment in TOOL_RESULTS[line.task_id]:
            assert fragment in results, (line.task_id, results)
