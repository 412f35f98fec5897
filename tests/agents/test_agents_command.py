"""Command-line agents behind the recording proxy: a real script, real subprocesses."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from trialrun.agents import AgentLimits
from trialrun.agents.command import CommandAgent, render_command
from trialrun.agents.factory import make_agent
from trialrun.models import create_model
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext

AGENT = Path(__file__).resolve().parents[1] / "servers" / "proxy_agent.py"
SCRIPT = """
tasks:
  read-note:
    - tool_calls: [{name: read_file, arguments: {path: notes/a.md}}]
    - tool_calls: [{name: read_file, arguments: {path: missing.md}}]
    - content: The note says hello.
"""


def make_task(prompt: str = "What does notes/a.md say?") -> Task:
    return Task.model_validate(
        {
            "task_id": "read-note",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": prompt},
            "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"],
        }
    )


def run(agent, tmp_path: Path, model=None, timeout_s: float = 60, prompt=None):
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True, exist_ok=True)
    (ws / "notes" / "a.md").write_text("hello world\n", encoding="utf-8")
    task = make_task(prompt) if prompt else make_task()
    box = Toolbox([], ToolContext(ws, task.task_id, {"trial": 0}))
    limits = AgentLimits(max_turns=10, timeout_s=timeout_s)
    return asyncio.run(agent.run(task, ws, box, model, limits))


def test_script_agent_behind_the_proxy_is_recorded_like_the_builtin_agent(tmp_path):
    script = tmp_path / "model.yaml"
    script.write_text(SCRIPT, encoding="utf-8")
    model = create_model(f"scripted:{script}")
    agent = make_agent(None, f"{shlex.quote(sys.executable)} {AGENT} {{prompt}}")
    result = run(agent, tmp_path, model)
    assert result.failure is None and result.infra_error is None, result.failure_message
    assert result.final_text == "The note says hello."
    assert result.turns == 3
    calls = [(c.name, c.arguments, c.ok) for c in result.tool_calls]
    assert calls == [
        ("read_file", {"path": "notes/a.md"}, True),
        ("read_file", {"path": "missing.md"}, False),  # the agent's tool said "error: …"
    ]
    assert result.tool_calls[0].result == "hello world\n"
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert len(result.turn_meta) == 3


def test_agent_without_a_model_still_runs_and_the_proxy_says_why(tmp_path):
    agent = CommandAgent(f"{shlex.quote(sys.executable)} {AGENT} {{prompt}}")
    result = run(agent, tmp_path, model=None)
    assert result.failure == "agent_error"
    assert "without --model" in result.failure_message
    assert result.turns == 0


def test_command_runs_in_the_workspace_and_stdout_is_the_answer(tmp_path):
    result = run(CommandAgent("cat notes/a.md; echo task={task_id}"), tmp_path)
    assert result.failure is None
    assert result.final_text == "hello world\ntask=read-note"
    assert result.tool_calls == [] and result.turns == 0


def test_nonzero_exit_is_an_agent_error_with_the_stderr_tail(tmp_path):
    result = run(CommandAgent("echo partial; echo 'it broke here' >&2; exit 3"), tmp_path)
    assert result.failure == "agent_error"
    assert "exited with 3" in result.failure_message
    assert "it broke here" in result.failure_message
    assert result.final_text == "partial"


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "survivor"
    cmd = f"(sleep 5; touch {marker}) & sleep 30"
    result = run(CommandAgent(cmd), tmp_path, timeout_s=0.5)
    assert result.failure == "timeout"
    assert "timed out" in result.failure_message
    # the backgrounded child was in the same group and was killed too
    asyncio.run(asyncio.sleep(0))
    assert not marker.exists()


def test_prompt_with_shell_metacharacters_reaches_the_agent_verbatim(tmp_path):
    prompt = 'It\'s $(rm -rf /) `id` "quoted" {prompt} ; & | > <'
    result = run(CommandAgent("printf %s {prompt}"), tmp_path, prompt=prompt)
    assert result.final_text == prompt


@given(st.text(min_size=0, max_size=80).filter(lambda s: "\x00" not in s))
def test_render_command_quotes_every_placeholder(value):
    rendered = render_command("agent --prompt {prompt} --id {task_id} {literal}", {
        "prompt": value, "workspace": "/w", "task_id": value,
    })  # fmt: skip
    assert shlex.split(rendered) == ["agent", "--prompt", value, "--id", value, "{literal}"]
