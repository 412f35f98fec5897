import asyncio
import json

import pytest

from trialrun.agents import AgentLimits
from trialrun.agents.loop import ToolLoopAgent
from trialrun.models import create_model
from trialrun.runner._faults import FaultyToolbox
from trialrun.tasks import Fault, Task
from trialrun.tools import Toolbox, ToolContext, tool


@tool
def echo(ctx: ToolContext, text: str) -> str:
    """Echo the text back.

    Args:
        text: what to echo
    """
    return f"echo:{text}"


@tool
def read_file(ctx: ToolContext, path: str) -> str:
    """Read a file in the workspace."""
    return (ctx.workspace / path).read_text()


def make_task(**extra):
    data = {
        "task_id": "t1",
        "suite": "golden",
        "description": "d",
        "inputs": {"prompt": "do it"},
        "graders": [{"type": "contains", "value": "x"}],
        "tracked_metrics": ["pass^k"],
    }
    data.update(extra)
    return Task.model_validate(data)


def run_agent(tmp_path, script, *, task=None, limits=None, faults=None):
    p = tmp_path / "script.yaml"
    p.write_text(script, encoding="utf-8")
    model = create_model(f"scripted:{p}")
    task = task or make_task()
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    box = Toolbox([echo, read_file], ToolContext(ws, task.task_id, {"trial": 0}))
    if faults:
        box = FaultyToolbox(box, faults)
    limits = limits or AgentLimits(max_turns=5)
    return asyncio.run(ToolLoopAgent().run(task, ws, box, model, limits))


TWO_TURNS = """
default:
  - tool_calls: [{name: echo, arguments: {text: hi}}]
  - content: all done
"""


def test_transcript_shape(tmp_path):
    run = run_agent(tmp_path, TWO_TURNS)
    assert run.failure is None and run.infra_error is None
    assert run.final_text == "all done"
    assert run.turns == 2
    roles = [m["role"] for m in run.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = run.messages[2]["tool_calls"][0]
    assert call == {
        "id": "call_0_0",
        "type": "function",
        "function": {"name": "echo", "arguments": json.dumps({"text": "hi"})},
    }
    assert run.messages[3] == {
        "role": "tool",
        "tool_call_id": "call_0_0",
        "name": "echo",
        "content": "echo:hi",
    }
    assert [(c.name, c.arguments, c.ok) for c in run.tool_calls] == [("echo", {"text": "hi"}, True)]
    assert [m["turn"] for m in run.turn_meta] == [0, 1]
    assert set(run.turn_meta[0]) == {"turn", "latency_s", "tokens", "cost_usd"}


def test_prior_messages_and_context_files(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "ctx.md").write_text("CONTEXT BODY")
    task = make_task(
        inputs={
            "prompt": "question",
            "context_files": ["ctx", "missing.md"],
            "messages": [
                {"role": "user", "content": "earlier"},
                {"role": "assistant", "content": "reply"},
            ],
        }
    )
    run = run_agent(tmp_path, "default: [{content: ok}]", task=task)
    assert [m["role"] for m in run.messages[:4]] == ["system", "user", "assistant", "user"]
    user = run.messages[3]["content"]
    assert user.startswith("question") and "CONTEXT BODY" in user and "missing.md" in user
    # prior assistant message counts as a played turn for the scripted model: out of turns
    assert run.final_text == "ok"


def test_max_turns(tmp_path):
    script = "default:\n" + "  - tool_calls: [{name: echo, arguments: {text: a}}]\n" * 5
    run = run_agent(tmp_path, script, limits=AgentLimits(max_turns=3))
    assert run.failure == "max_turns"
    assert run.turns == 3
    assert len(run.tool_calls) == 3


def test_timeout_keeps_partial_transcript(tmp_path):
    script = """
default:
  - tool_calls: [{name: echo, arguments: {text: a}}]
  - {content: late, delay_s: 5}
"""
    run = run_agent(tmp_path, script, limits=AgentLimits(max_turns=5, timeout_s=0.2))
    assert run.failure == "timeout"
    assert run.turns == 1 and len(run.tool_calls) == 1
    assert run.messages[-1]["role"] == "tool"


def test_loop_fires(tmp_path):
    script = """
default:
  - tool_calls: [{name: echo, arguments: {text: a}}, {name: echo, arguments: {text: b}}]
  - tool_calls: [{name: echo, arguments: {text: a}}]
  - tool_calls: [{name: echo, arguments: {text: a}}]
  - content: done
"""
    run = run_agent(tmp_path, script)
    assert run.loop_fires == 2
    assert run.failure is None


def test_faults_every_call_and_on_call(tmp_path):
    script = """
default:
  - tool_calls: [{name: echo, arguments: {text: a}}, {name: echo, arguments: {text: b}},
                 {name: read_file, arguments: {path: nope}}]
  - content: done
"""
    run = run_agent(
        tmp_path,
        script,
        faults=[Fault(tool="echo", error="disk on fire", on_call=2), Fault(tool="read_file")],
    )
    assert [(c.ok, c.result) for c in run.tool_calls] == [
        (True, "echo:a"),
        (False, "disk on fire"),
        (False, "injected fault"),
    ]


def test_bad_arguments_and_unknown_tool(tmp_path):
    script = """
default:
  - tool_calls:
      - {name: echo, arguments: "{broken"}
      - {name: echo, arguments: {wrong: 1}}
      - {name: nosuch, arguments: {}}
  - content: done
"""
    run = run_agent(tmp_path, script)
    results = [(c.name, c.ok) for c in run.tool_calls]
    assert results == [("echo", False), ("echo", False), ("nosuch", False)]
    assert "invalid arguments" in run.tool_calls[0].result
    assert "unknown tool" in run.tool_calls[2].result
    assert run.messages[2]["tool_calls"][0]["function"]["arguments"] == "{broken"
    assert run.final_text == "done" and run.failure is None


def test_model_timeout_and_infra(tmp_path):
    run = run_agent(tmp_path, "default: [{error: timeout}]")
    assert run.failure == "model_timeout"
    run = run_agent(tmp_path, "default: [{error: infra}]")
    assert run.infra_error and run.failure is None


@pytest.mark.parametrize(
    "limits,kind",
    [
        (AgentLimits(max_turns=5, max_tokens=150), "max_tokens"),
        (AgentLimits(max_turns=5, max_cost_usd=0.15), "max_cost"),
    ],
)
def test_token_and_cost_caps(tmp_path, limits, kind):
    script = """
default:
  - tool_calls: [{name: echo, arguments: {text: a}}]
    usage: {prompt: 100, completion: 10}
    cost_usd: 0.1
  - tool_calls: [{name: echo, arguments: {text: b}}]
    usage: {prompt: 100, completion: 10}
    cost_usd: 0.1
  - content: done
"""
    run = run_agent(tmp_path, script, limits=limits)
    assert run.failure == kind
    assert run.turns == 2
    assert run.usage.prompt == 200
    assert run.cost_usd == pytest.approx(0.2)


def test_no_model_is_infra(tmp_path):
    task = make_task()
    box = Toolbox([], ToolContext(tmp_path, "t1"))
    run = asyncio.run(ToolLoopAgent().run(task, tmp_path, box, None, AgentLimits(max_turns=1)))
    assert run.infra_error
