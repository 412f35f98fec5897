"""Which agent runs a task: --agent/--agent-cmd beats the task file's `agent:`, which
beats `[run] agent` in trialrun.toml; tasks naming different agents run each with its own,
in this process and on worker processes alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trialrun import run as trialrun_run

ROOT = Path(__file__).resolve().parents[2]
AGENTS = """
def from_task(task_input, workspace, tools, model):
    return "task-file agent"

def from_config(task_input, workspace, tools, model):
    return "config agent"

def from_cli(task_input, workspace, tools, model):
    return "cli agent"
"""


def _task(folder: Path, task_id: str, agent: str | None) -> Path:
    task = {
        "task_id": task_id,
        "suite": "golden",
        "description": "d",
        "inputs": {"prompt": "hi"},
        "graders": [{"type": "contains", "value": "agent"}],
        "tracked_metrics": ["pass^k"],
        "trials": {"k": 1},
        **({"agent": agent} if agent else {}),
    }
    path = folder / f"{task_id}.json"
    path.write_text(json.dumps(task))
    return path


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agents_here.py").write_text(AGENTS)
    (tmp_path / "trialrun.toml").write_text('[run]\nagent = "agents_here.py:from_config"\n')
    _task(tmp_path, "own", "agents_here.py:from_task")
    _task(tmp_path, "plain", None)
    return tmp_path


def _answers(run_dir: Path) -> dict[str, str]:
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    return {line["task_id"]: line["final_text"] for line in lines}


def test_the_task_file_beats_run_agent_in_trialrun_toml(project: Path) -> None:
    done = trialrun_run([project / "own.json", project / "plain.json"], out=project / "r")
    assert _answers(done.path) == {"own": "task-file agent", "plain": "config agent"}


def test_the_given_agent_beats_the_task_file(project: Path) -> None:
    done = trialrun_run(
        [project / "own.json", project / "plain.json"],
        out=project / "r",
        agent="agents_here.py:from_cli",
    )
    assert _answers(done.path) == {"own": "cli agent", "plain": "cli agent"}


def test_worker_processes_run_each_task_with_its_own_agent(project: Path) -> None:
    done = trialrun_run(
        [project / "own.json", project / "plain.json"],
        out=project / "r",
        processes=2,
        concurrency=2,
    )
    assert _answers(done.path) == {"own": "task-file agent", "plain": "config agent"}


def test_without_run_agent_the_other_tasks_keep_the_built_in_loop(project: Path) -> None:
    (project / "trialrun.toml").write_text("")
    script = project / "s.yaml"
    script.write_text("default:\n  - content: the built-in agent\n")
    done = trialrun_run(
        [project / "own.json", project / "plain.json"],
        out=project / "r",
        models=[f"scripted:{script}"],
    )
    assert _answers(done.path) == {"own": "task-file agent", "plain": "the built-in agent"}


def test_cli_a_bad_agent_in_a_task_file_is_one_line_and_exit_2(project: Path) -> None:
    bad = _task(project, "bad", "gemini")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(bad), "--out", str(project / "r")],
        capture_output=True, text=True, env=env, cwd=project,
    )  # fmt: skip
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"trialrun: {bad}:")
    assert (
        "agent: 'gemini' is not an agent: did you mean 'gemini-cli'? use a preset "
        "(claude-code, codex, gemini-cli) or package.module:function; nothing was run"
    ) in first
    assert "Traceback" not in done.stderr
    assert not (project / "r").exists()


def test_a_task_files_agent_function_that_does_not_load_names_the_file(project: Path) -> None:
    bad = _task(project, "missing", "agents_here.py:nowhere")
    with pytest.raises(Exception, match=r"missing\.json: agent: ") as caught:
        trialrun_run([bad], out=project / "r")
    assert type(caught.value).__name__ == "UserError"
