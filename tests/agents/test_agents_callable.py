"""Python callables as agents: sync and async, tools recorded, errors as agent failures."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from trialrun.agents import AgentLimits
from trialrun.agents.factory import make_agent
from trialrun.errors import UserError
from trialrun.models import create_model
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext, ToolError, tool


@tool
def read_file(ctx: ToolContext, path: str) -> str:
    """Read a file.

    Args:
        path: relative path
    """
    target = ctx.workspace / path
    if not target.is_file():
        raise ToolError(f"{path}: no such file")
    return target.read_text(encoding="utf-8")


AGENTS = """
import asyncio

def sync_agent(task_input, workspace, tools, model):
    text = tools.read_file(path="notes/a.md")
    missing = tools.call("read_file", path="nope.md")
    return f"{task_input.task_id}: {text.strip()} / {missing}"

async def async_agent(task_input, workspace, tools, model):
    text = await tools.read_file(path="notes/a.md")
    reply = await model.complete([{"role": "user", "content": task_input.prompt}])
    return {"final_text": reply.text + " | " + text.strip()}

def broken_agent(task_input, workspace, tools, model):
    tools.read_file(path="notes/a.md")
    raise ValueError("cannot parse the vault")

def slow_agent(task_input, workspace, tools, model):
    import time
    time.sleep(2)
    return "late"

not_callable = 42
"""


@pytest.fixture
def agents_module(tmp_path, monkeypatch):
    (tmp_path / "h4_user_agents.py").write_text(textwrap.dedent(AGENTS), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "h4_user_agents"
    sys.modules.pop("h4_user_agents", None)


def run(agent, tmp_path: Path, model=None, timeout_s: float = 30):
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True, exist_ok=True)
    (ws / "notes" / "a.md").write_text("hello\n", encoding="utf-8")
    task = Task.model_validate(
        {
            "task_id": "t1",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "read it"},
            "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"],
        }
    )
    box = Toolbox([read_file], ToolContext(ws, task.task_id, {"trial": 0}))
    return asyncio.run(agent.run(task, ws, box, model, AgentLimits(10, timeout_s=timeout_s)))


def test_sync_callable_tool_calls_are_recorded(agents_module, tmp_path):
    result = run(make_agent(f"{agents_module}:sync_agent", None), tmp_path)
    assert result.failure is None
    assert result.final_text == "t1: hello / nope.md: no such file"
    assert [(c.name, c.arguments, c.ok) for c in result.tool_calls] == [
        ("read_file", {"path": "notes/a.md"}, True),
        ("read_file", {"path": "nope.md"}, False),
    ]
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


def test_async_callable_with_model_calls_counted(agents_module, tmp_path):
    script = tmp_path / "m.yaml"
    script.write_text("default:\n  - content: model says hi\n", encoding="utf-8")
    model = create_model(f"scripted:{script}")
    result = run(make_agent(f"{agents_module}:async_agent", None), tmp_path, model)
    assert result.failure is None, result.failure_message
    assert result.final_text == "model says hi | hello"
    assert result.turns == 1 and len(result.turn_meta) == 1
    assert [c.name for c in result.tool_calls] == ["read_file"]


def test_exception_in_user_code_is_an_agent_error(agents_module, tmp_path):
    result = run(make_agent(f"{agents_module}:broken_agent", None), tmp_path)
    assert result.failure == "agent_error"
    assert result.failure_message.endswith("ValueError: cannot parse the vault")
    assert len(result.tool_calls) == 1  # calls made before the crash are kept


def test_timeout_is_the_agents_failure(agents_module, tmp_path):
    result = run(make_agent(f"{agents_module}:slow_agent", None), tmp_path, timeout_s=0.2)
    assert result.failure == "timeout"


def test_agent_from_a_file_path(tmp_path):
    path = tmp_path / "my_agent.py"
    path.write_text("def run(task_input, workspace, tools, model):\n    return 'ok'\n")
    result = run(make_agent(f"{path}:run", None), tmp_path)
    assert result.final_text == "ok"


@pytest.mark.parametrize(
    ("agent", "agent_cmd", "pattern"),
    [
        ("no_colon", None, "expected package.module:function"),
        ("h4_nonexistent_pkg.mod:fn", None, "cannot import 'h4_nonexistent_pkg.mod'"),
        ("json:no_such_function", None, "has no attribute 'no_such_function'"),
        ("missing_file.py:fn", None, "file missing_file.py not found"),
        ("json:x", "echo hi", "give one of them, not both"),
        (None, "  ", "--agent-cmd: empty command"),
        (None, None, "no agent given"),
    ],
)
def test_bad_agent_refs_are_user_errors_naming_the_flag(agent, agent_cmd, pattern):
    with pytest.raises(UserError, match=pattern) as info:
        make_agent(agent, agent_cmd)
    assert "--agent" in str(info.value) or "no agent given" in str(info.value)


def test_non_callable_agent_is_a_user_error(agents_module):
    with pytest.raises(UserError, match="is not callable"):
        make_agent(f"{agents_module}:not_callable", None)
