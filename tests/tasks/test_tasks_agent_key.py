"""A task file's `agent:` key: the agent under test for that task (a preset or
package.module:function), in native and Scribe files; a name the run does not know is
one problem naming the file, the key and the names that exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tasks_support import write

from trialrun.tasks import load_tasks

PRESETS = ("claude-code", "codex", "gemini-cli")

TASK = """
task_id: t1
suite: golden
description: d
agent: {agent}
inputs: {{prompt: hello}}
graders:
  - {{type: contains, value: hi}}
tracked_metrics: [pass^k]
"""


def test_native_yaml_task_names_its_agent(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", TASK.format(agent="gemini-cli"))
    report = load_tasks([f], agents=PRESETS)
    assert report.problems == []
    assert report.tasks[0].agent == "gemini-cli"


def test_a_task_without_agent_leaves_it_to_the_run(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", TASK.format(agent="").replace("agent: \n", ""))
    assert load_tasks([f], agents=PRESETS).tasks[0].agent is None


def test_a_python_agent_is_accepted_as_module_function(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", TASK.format(agent="my_pkg.agent:run"))
    report = load_tasks([f], agents=PRESETS)
    assert report.problems == [] and report.tasks[0].agent == "my_pkg.agent:run"


def test_an_unknown_agent_is_one_problem_naming_file_key_and_presets(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", TASK.format(agent="gemini"))
    report = load_tasks([f], agents=PRESETS)
    assert report.tasks == []
    assert [str(p) for p in report.problems] == [
        f"{f}:4: agent: 'gemini' is not an agent: did you mean 'gemini-cli'? use a preset "
        "(claude-code, codex, gemini-cli) or package.module:function"
    ]


def test_names_are_only_checked_when_the_caller_knows_them(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", TASK.format(agent="someday-agent"))
    assert load_tasks([f]).tasks[0].agent == "someday-agent"


def test_a_non_string_or_spaced_agent_is_a_problem(tmp_path: Path) -> None:
    for value, expected in (("3", "input should be a valid string"), ('"a b"', "without spaces")):
        f = write(tmp_path / "t.yaml", TASK.format(agent=value))
        report = load_tasks([f], agents=PRESETS)
        assert report.tasks == []
        (problem,) = report.problems
        assert problem.field == "agent" and expected in problem.message, problem


def test_a_scribe_task_names_its_agent_too(tmp_path: Path) -> None:
    task = {
        "id": "s1",
        "description": "d",
        "userMessage": "Create note.md",
        "agent": "claude-code",
        "vaultAssertions": [{"type": "fileExists", "path": "note.md"}],
    }
    f = write(tmp_path / "s1.json", json.dumps(task))
    report = load_tasks([f], agents=PRESETS)
    assert report.problems == [] and report.tasks[0].agent == "claude-code"
    task["agent"] = "claude"
    f.write_text(json.dumps(task))
    (problem,) = load_tasks([f], agents=PRESETS).problems
    assert problem.field == "agent" and "did you mean 'claude-code'?" in problem.message


MODULE_FUNCTION = st.from_regex(r"[a-z_][a-z0-9_.]{0,20}:[a-z_][a-z0-9_]{0,10}", fullmatch=True)


@given(st.sampled_from(PRESETS) | MODULE_FUNCTION)
def test_every_preset_and_every_module_function_loads(tmp_path_factory, name: str) -> None:
    folder = tmp_path_factory.mktemp("agent")
    f = write(folder / "t.yaml", TASK.format(agent=json.dumps(name)))
    report = load_tasks([f], agents=PRESETS)
    assert report.problems == [] and report.tasks[0].agent == name


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12))
def test_any_other_bare_name_is_refused_naming_the_presets(tmp_path_factory, name: str) -> None:
    if name in PRESETS:
        return
    folder = tmp_path_factory.mktemp("agent")
    f = write(folder / "t.yaml", TASK.format(agent=json.dumps(name)))
    (problem,) = load_tasks([f], agents=PRESETS).problems
    assert problem.field == "agent"
    assert "use a preset (claude-code, codex, gemini-cli) or package.module:function" in (
        problem.message
    )


def test_cli_validate_names_an_unknown_agent(tmp_path: Path) -> None:
    f = write(tmp_path / "t.yaml", TASK.format(agent="codx"))
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "validate", str(f)],
        capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(root / "src")},
    )  # fmt: skip
    assert done.returncode == 2
    assert f"{f}:4: agent: 'codx' is not an agent: did you mean 'codex'?" in done.stderr
