"""CLI: `trialrun validate`, `trialrun list`, `trialrun schema`; corrupting each example."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tasks_support import write
from typer.testing import CliRunner

from cli_support import invoke
from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.tasks import load_tasks, report_problems_and_exit


def test_validate_examples_passes(examples: Path) -> None:
    result = invoke("validate", str(examples))
    assert result.exit_code == 0, result.output
    assert "0 problem(s)" in result.stdout
    assert "skipped: scripted-model file" in result.stderr


def test_list_examples_one_line_per_task(examples: Path) -> None:
    result = invoke("list", str(examples))
    assert result.exit_code == 0
    rows = result.stdout.splitlines()
    report = load_tasks([examples])
    assert len(rows) == len(report.tasks)
    for row, task in zip(rows, report.tasks, strict=True):
        cells = row.split()
        assert cells[0] == task.task_id
        assert cells[1:4] == [task.suite, task.tier or "-", str(task.k)]
        assert cells[4] == str(task.source)
    assert "skipped" in result.stderr and "skipped" not in result.stdout


def test_list_never_truncates_long_ids(tmp_path: Path) -> None:
    long_id = "a-very-long-task-id-" + "x" * 108  # 128 characters, the longest id allowed
    write(
        tmp_path / "t.yaml",
        f"""
        task_id: {long_id}
        suite: golden
        description: d
        inputs: {{prompt: p}}
        graders: [{{type: contains, value: x}}]
        tracked_metrics: [pass^k]
        """,
    )
    result = CliRunner().invoke(app, ["list", str(tmp_path)], env={"COLUMNS": "40"})
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split()[:2] == [long_id, "golden"]
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "list", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "40"},
    )
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0].split()[:2] == [long_id, "golden"]


def test_validate_json_is_one_document_with_empty_stderr(examples: Path) -> None:
    result = invoke("validate", str(examples), "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    assert doc["ok"] is True and doc["problems"] == [] and doc["warnings"] == []
    assert {t["task_id"] for t in doc["tasks"]} >= {"read-capital", "update-trip-budget"}
    # the benchmark suite config is checked as a suite; scripted-model files and the
    # pytest example agent are named as skipped, not tasks
    assert [(Path(c["file"]).name, c["ok"], c["problems"]) for c in doc["suites"]] == [
        ("full-suite.toml", True, [])
    ]
    assert {Path(s["path"]).name for s in doc["skipped"]} == {
        "good.yaml", "bad.yaml", "judge.yaml", "model-a.yaml", "model-b.yaml",
        "agent.yaml",
        "support_user.yaml", "incident-2026-11-20.chat.json",
        "agents",  # the agent-CLI examples: a project of their own (trialrun.toml)
    }


def test_schema_command_prints_json() -> None:
    result = invoke("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["$schema"].endswith("2020-12/schema")


@pytest.fixture
def suite(tmp_path: Path, examples: Path) -> Path:
    dest = tmp_path / "examples"
    shutil.copytree(examples, dest, symlinks=True)
    return dest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _line_of(path: Path, snippet: str) -> int:
    return next(i for i, s in enumerate(path.read_text().splitlines(), 1) if snippet in s)


CORRUPT = [
    # (file, old, new, field, message part)
    ("tasks/golden/read_capital.yaml", "tier: T1", "tier: 1", "tier", "input should be"),
    (
        "tasks/golden/read_capital.yaml",
        "trials: {k: 3}",
        "trials: {k: 3, metrc: pass@k}",
        "trials.metrc",
        "did you mean 'metric'?",
    ),
    (
        "tasks/golden/read_capital.yaml",
        "description: Read a note and report the capital city it names.\n",
        "",
        "description",
        "required key is missing",
    ),
    ("tasks/golden/organize_notes.yaml", "'\\b3\\b'", "'\\b3(\\b'", "0.graders.1.value.0", "regex"),
    (
        "tasks/golden/read_capital.yaml",
        "fixture: notes-basic",
        "fixture: notes-basik",
        "environment.fixture",
        "fixture folder 'notes-basik' not found",
    ),
    (
        "tasks/golden/create_todo.json",
        '"buy milk", "caseSensitive"',
        '"buy milk", "caseSensitve"',
        "graders.1.caseSensitve",
        "did you mean 'caseSensitive'?",
    ),
    ("tasks/golden/create_todo.json", '"k": 3', '"k": "three"', "trials.k", "valid integer"),
    (
        "tasks/golden/close_project.toml",
        'type = "frontmatterEquals"',
        'type = "frontmatterEqual"',
        "graders.1.type",
        "did you mean 'frontmatterEquals'?",
    ),
    (
        "tasks/golden/close_project.toml",
        'fixture = "projects"\n',
        'fixture = "nope"\n',
        "environment.fixture",
        "not found",
    ),
    (
        "tasks/golden/close_project.toml",
        'suite = "golden"\n',
        "",
        "suite",
        "required key is missing",
    ),
    (
        "scribe/update-trip-budget.json",
        '"maxTurns": 8',
        '"maxTurns": "eight"',
        "maxTurns",
        "valid integer",
    ),
    (
        "scribe/update-trip-budget.json",
        '"contextFiles"',
        '"contextFile"',
        "contextFile",
        "did you mean 'contextFiles'?",
    ),
    (
        "scribe/update-trip-budget.json",
        '"type": "frontmatterEquals"',
        '"type": "frontmaterEquals"',
        "vaultAssertions.0.type",
        "did you mean 'frontmatterEquals'?",
    ),
    (
        "scribe/clean-reading-list.json",
        '"^- Dune"',
        '"^- Dune("',
        "vaultAssertions.3.value",
        "regex",
    ),
    (
        "scribe/clean-reading-list.json",
        '"fixture": "reading-vault"',
        '"fixture": "reading"',
        "fixture",
        "not found",
    ),
    (
        "scribe/clean-reading-list.json",
        '"id": "clean-reading-list"',
        '"id": "clean-list"',
        "id",
        "must equal the file name",
    ),
    (
        "scribe/clean-reading-list.json",
        '"from": "_seed/agents/AGENTS.md"',
        '"from": "_seed/agent/AGENTS.md"',
        "setup.0.from",
        "not found",
    ),
]


@pytest.mark.parametrize(("rel", "old", "new", "field", "part"), CORRUPT)
def test_corrupting_each_example_gives_one_line_errors_and_exit_2(
    suite: Path, rel: str, old: str, new: str, field: str, part: str
) -> None:
    f = suite / rel
    _edit(f, old, new)
    result = invoke("validate", str(suite))
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if "skipped:" not in line]
    assert len(errors) == 1, errors
    [line] = errors
    assert line.startswith(f"{f}:")
    assert f": {field}: " in line and part in line
    assert "Traceback" not in result.output
    # the line number points at the changed text (or, for a removed key, its parent)
    lineno = int(line[len(str(f)) + 1 :].split(":", 1)[0])
    if new and new.strip():
        snippet = new.strip().splitlines()[0].split(",")[0].strip("{ ")
        assert _line_of(f, snippet) == lineno
    json_result = invoke("validate", str(suite), "--json")
    assert json_result.exit_code == 2 and json_result.stderr == ""
    doc = json.loads(json_result.stdout)
    assert doc["ok"] is False and len(doc["problems"]) == 1
    assert doc["problems"][0]["field"] == field


def test_validate_reports_warnings_with_exit_0(tmp_path: Path) -> None:
    write(
        tmp_path / "s.json",
        json.dumps(
            {"id": "s", "description": "d", "userMessage": "u", "forbiddenTools": ["google_search"]}
        ),
    )
    result = invoke("validate", str(tmp_path))
    assert result.exit_code == 0
    assert "forbiddenTools.0: warning: tool 'google_search'" in result.stderr
    doc = json.loads(invoke("validate", str(tmp_path), "--json").stdout)
    assert doc["ok"] is True and len(doc["warnings"]) == 1


def test_entry_point_exit_codes(tmp_path: Path, examples: Path) -> None:
    bad = write(tmp_path / "bad.yaml", "task_id: x\n")
    ok = subprocess.run(
        [sys.executable, "-m", "trialrun", "validate", str(examples)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "validate", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{bad}:1: suite: required key is missing" in proc.stderr


def test_report_problems_and_exit(tmp_path: Path, examples: Path) -> None:
    good = load_tasks([examples])
    assert len(report_problems_and_exit(good, skip_invalid=False, echo=lambda s: None)) == len(
        good.tasks
    )
    write(tmp_path / "a.yaml", "task_id: a\n")
    write(
        tmp_path / "b.yaml",
        """
        task_id: b
        suite: golden
        description: d
        inputs: {prompt: p}
        graders: [{type: contains, value: x}]
        tracked_metrics: [pass^k]
        """,
    )
    report = load_tasks([tmp_path])
    said: list[str] = []
    with pytest.raises(UserError) as err:
        report_problems_and_exit(report, skip_invalid=False, echo=said.append)
    assert err.value.exit_code == 2 and "--skip-invalid" in str(err.value)
    assert any("a.yaml:1: suite" in s for s in said)
    said.clear()
    tasks = report_problems_and_exit(report, skip_invalid=True, echo=said.append)
    assert [t.task_id for t in tasks] == ["b"]
    assert f"{tmp_path / 'a.yaml'}: skipped: invalid task file" in said
