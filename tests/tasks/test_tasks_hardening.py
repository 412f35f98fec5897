"""Regression tests from QA: setup paths that leave the workspace, did-you-mean for tool
names, a boolean tool-call budget, a directory seed, and the matcher-kind wording."""

from __future__ import annotations

import json
from pathlib import Path

from tasks_support import write

from trialrun.tasks import load_tasks


def _scribe(tmp_path: Path, name: str, **fields: object) -> Path:
    data = {"id": name, "userMessage": "hi", "description": "d", **fields}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _seeds(tmp_path: Path) -> None:
    write(tmp_path / "fixtures" / "_seed" / "a.md", "seed\n")


def test_setup_paths_outside_the_workspace_are_problems(tmp_path: Path) -> None:
    _seeds(tmp_path)
    f = _scribe(
        tmp_path,
        "t",
        expectedTools=["read_file"],
        setup=[
            {"path": "../x.md", "from": "_seed/a.md"},
            {"path": "/etc/x.md", "from": "_seed/a.md"},
            {"path": "a/../../x.md", "from": "_seed/a.md"},
            {"path": "", "from": "_seed/a.md"},
            {"path": "ok/a.md", "from": "_seed/a.md"},
        ],
    )
    report = load_tasks([f])
    got = {p.field: p.message for p in report.problems}
    assert set(got) == {"setup.0.path", "setup.1.path", "setup.2.path", "setup.3.path"}
    assert "leaves the workspace" in got["setup.0.path"]
    assert "is absolute" in got["setup.1.path"]
    assert "leaves the workspace" in got["setup.2.path"]
    assert "empty" in got["setup.3.path"]
    assert report.tasks == []


def test_native_setup_path_escape_points_at_its_line(tmp_path: Path) -> None:
    _seeds(tmp_path)
    f = write(
        tmp_path / "t.yaml",
        """
        task_id: t
        suite: golden
        description: d
        inputs: {prompt: hi}
        environment:
          setup:
            - {path: ../../outside.md, from: _seed/a.md}
        graders: [{type: contains, value: x}]
        tracked_metrics: [pass^k]
        """,
    )
    [problem] = load_tasks([f]).problems
    assert (problem.line, problem.field) == (7, "environment.setup.0.path")
    assert "leaves the workspace" in problem.message


def test_setup_may_seed_a_folder(tmp_path: Path) -> None:
    _seeds(tmp_path)
    f = _scribe(
        tmp_path, "t", expectedTools=["read_file"], setup=[{"path": "seed", "from": "_seed"}]
    )
    report = load_tasks([f])
    assert report.problems == []
    assert [t.task_id for t in report.tasks] == ["t"]


def test_unknown_tool_warning_suggests_the_close_vault_tool(tmp_path: Path) -> None:
    f = _scribe(tmp_path, "t", expectedTools=["read_fil", "google_search"])
    report = load_tasks([f])
    assert report.ok
    messages = {w.field: w.message for w in report.warnings}
    assert messages["expectedTools.0"].endswith("did you mean 'read_file'?")
    assert "did you mean" not in messages["expectedTools.1"]


def test_scribes_memory_session_skill_and_image_tools_validate_clean(tmp_path: Path) -> None:
    scribe_tools = ["update_memory", "read_memory", "recall_sessions", "activate_skill"]
    f = _scribe(
        tmp_path,
        "t",
        expectedTools=scribe_tools,
        forbiddenTools=["generate_image"],
        vaultAssertions=[{"type": "fileExists", "path": "gemini-scribe/AGENTS.md"}],
    )
    report = load_tasks([f])
    assert (report.problems, report.warnings) == ([], [])


def test_boolean_tool_call_budget_is_a_problem(tmp_path: Path) -> None:
    f = _scribe(tmp_path, "t", expectedTools=["read_file"], toolCallBudget=True)
    [problem] = load_tasks([f]).problems
    assert problem.field == "toolCallBudget"
    assert "number of tool calls" in problem.message


def test_state_check_among_output_matchers_reads_well(tmp_path: Path) -> None:
    f = _scribe(tmp_path, "t", outputMatchers=[{"type": "fileExists", "path": "a"}])
    [problem] = load_tasks([f]).problems
    assert problem.field == "outputMatchers.0.type"
    assert problem.message.startswith("'fileExists' is not an output matcher")
