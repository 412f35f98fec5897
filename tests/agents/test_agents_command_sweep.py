"""`--agent-cmd` agents get the command graders' containment: no hang, no survivor.

A command that answers and exits while its detached children hold stdout used to hang
until the agent timeout (and then leave them running). Run with the marker sweep (the
default for agents) and inside the bwrap jail (requested per trial, skipped where bwrap
does not work).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import psutil
import pytest

from trialrun.agents import AgentLimits
from trialrun.agents.command import CommandAgent
from trialrun.sandbox import jail_available
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext

pytestmark = pytest.mark.timeout(120)


def survivors(arg: str) -> list[psutil.Process]:
    return [
        p
        for p in psutil.process_iter(["cmdline", "status"])
        if p.info["cmdline"] == ["sleep", arg] and p.info["status"] != "zombie"
    ]


@pytest.mark.parametrize("jail", [False, True])
def test_detached_children_of_an_agent_command_are_killed(tmp_path: Path, jail: bool) -> None:
    if jail and not jail_available():
        pytest.skip("bwrap is not installed or does not work here")
    a, b = f"1000.{os.getpid()}1", f"1000.{os.getpid()}2"
    command = f"setsid sleep {a} & nohup sleep {b} & echo the answer"
    task = Task.model_validate(
        {
            "task_id": "answer",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "answer"},
            "graders": [{"type": "contains", "value": "answer"}],
            "tracked_metrics": ["pass^k"],
        }
    )
    extra = {"trial": 0, "jail": jail}
    box = Toolbox([], ToolContext(tmp_path, task.task_id, extra))
    limits = AgentLimits(max_turns=5, timeout_s=60)
    try:
        run = asyncio.run(CommandAgent(command).run(task, tmp_path, box, None, limits))
        assert run.failure is None, run.failure_message
        assert run.final_text == "the answer"
        # killed, not waited for: on a busy machine a SIGKILLed sleep may take a moment
        # to become a zombie; one that was never killed would outlive the wait
        _, alive = psutil.wait_procs(survivors(a) + survivors(b), timeout=10)
        assert alive == []
    finally:
        for proc in survivors(a) + survivors(b):
            proc.kill()
