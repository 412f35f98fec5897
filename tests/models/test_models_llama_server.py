"""The openai-compat provider against a real llama_cpp.server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

import pytest

from trialrun.agents import AgentLimits
from trialrun.agents.command import CommandAgent
from trialrun.models import CompletionParams, create_model
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext

AGENT = Path(__file__).resolve().parents[1] / "servers" / "proxy_agent.py"


@pytest.mark.local_model
def test_openai_compat_completes_against_llama_cpp_server(llama_server, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    model = create_model(f"openai-compat:smollm2@{llama_server}")
    messages = [{"role": "user", "content": "Say hello."}]
    completion = asyncio.run(model.complete(messages, [], CompletionParams(max_tokens=8)))
    assert isinstance(completion.text, str) and completion.text
    assert completion.usage.prompt > 0 and 0 < completion.usage.completion <= 8
    assert completion.cost_usd is None  # no price configured for this model
    assert model.stats.retries == 0


@pytest.mark.local_model
def test_command_agent_through_proxy_to_llama_cpp_server(llama_server, tmp_path):
    """agent script → trialrun proxy → openai-compat model → llama_cpp.server."""
    model = create_model(f"openai-compat:smollm2@{llama_server}")
    task = Task.model_validate(
        {
            "task_id": "hello",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "Say hello in one word."},
            "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"],
        }
    )
    box = Toolbox([], ToolContext(tmp_path, task.task_id))
    agent = CommandAgent(f"{shlex.quote(sys.executable)} {AGENT} {{prompt}}")
    run = asyncio.run(agent.run(task, tmp_path, box, model, AgentLimits(5, timeout_s=120)))
    assert run.infra_error is None
    assert run.turns >= 1 and run.usage.prompt > 0
    assert run.messages[0] == {"role": "user", "content": "Say hello in one word."}
