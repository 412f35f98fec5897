"""Tool calls are bounded: a slow tool is a tool error, the trial and Ctrl-C still work.

Synchronous tool bodies run off the event loop with a per-call time limit. The guards
are pytest-timeout and subprocess timeouts; no test asserts on wall-clock figures.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import trialrun
from trialrun.agents import AgentLimits
from trialrun.agents.loop import ToolLoopAgent
from trialrun.errors import UserError
from trialrun.models import create_model
from trialrun.rundir import ResultLine, RunDir
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext, load_pack, tool

pytestmark = pytest.mark.timeout(120)

RELEASE = threading.Event()  # lets abandoned sleeper threads finish at teardown


@pytest.fixture(autouse=True)
def _release_sleepers():
    RELEASE.clear()
    yield
    RELEASE.set()


@tool
def sleepy(ctx: ToolContext, seconds: float = 20) -> str:
    """Block the calling thread (a synchronous tool that takes too long)."""
    RELEASE.wait(seconds)
    return "woke up"


@tool
async def sleepy_async(ctx: ToolContext) -> str:
    """An async tool that never answers."""
    await asyncio.sleep(3600)
    return "never"


@tool
def quick(ctx: ToolContext) -> str:
    """Answer at once."""
    return "quick"


@tool
def own_timeout(ctx: ToolContext) -> str:
    """A tool whose own code raises TimeoutError (not the harness limit)."""
    raise TimeoutError("socket read timed out")


def box(tmp_path: Path, *tools, **kwargs) -> Toolbox:
    return Toolbox(list(tools), ToolContext(tmp_path, "t", {"trial": 0}), **kwargs)


def test_a_slow_sync_tool_is_cut_off_with_an_error_naming_tool_and_limit(tmp_path):
    toolbox = box(tmp_path, sleepy, quick, call_timeout_s=0.3)

    async def calls():
        return await toolbox.call("sleepy", {}), await toolbox.call("quick", {})

    slow, fast = asyncio.run(calls())
    assert slow.ok is False
    assert slow.content.startswith("sleepy: no result within 0.3s (the tool time limit)")
    assert fast.ok is True and fast.content == "quick"


def test_a_hanging_async_tool_is_cut_off_too(tmp_path):
    toolbox = box(tmp_path, sleepy_async, call_timeout_s=0.3)
    result = asyncio.run(toolbox.call("sleepy_async", {}))
    assert result.ok is False and "sleepy_async: no result within 0.3s" in result.content


def test_a_tools_own_timeout_error_is_not_the_limit(tmp_path):
    result = asyncio.run(box(tmp_path, own_timeout).call("own_timeout", {}))
    assert result.ok is False
    assert result.content == "own_timeout failed: TimeoutError: socket read timed out"


def test_the_default_limit_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIALRUN_TOOL_TIMEOUT_S", "0.3")
    result = asyncio.run(box(tmp_path, sleepy).call("sleepy", {}))
    assert result.ok is False and "no result within 0.3s" in result.content
    monkeypatch.setenv("TRIALRUN_TOOL_TIMEOUT_S", "soon")
    with pytest.raises(UserError, match=r"TRIALRUN_TOOL_TIMEOUT_S='soon'"):
        box(tmp_path, sleepy)


def write_tools_module(tmp_path: Path) -> Path:
    module = tmp_path / "slow_tools.py"
    module.write_text(
        "import pathlib, time\n"
        "def slow_lookup(ctx, key: str) -> str:\n"
        '    """Look a key up, very slowly."""\n'
        "    time.sleep(20)\n"
        "    return 'found ' + key\n"
        "def lookup(ctx, key: str) -> str:\n"
        '    """Look a key up."""\n'
        "    return 'value of ' + key\n",
        encoding="utf-8",
    )
    return module


def test_python_pack_timeout_option(tmp_path):
    module = write_tools_module(tmp_path)
    tools = load_pack("python", {"functions": [f"{module}:slow_lookup"], "timeout_s": 0.3})
    result = asyncio.run(box(tmp_path, *tools).call("slow_lookup", {"key": "k"}))
    assert result.ok is False and "slow_lookup: no result within 0.3s" in result.content
    with pytest.raises(UserError, match="timeout_s"):
        load_pack("python", {"functions": [f"{module}:lookup"], "timeout_s": "x"})
    with pytest.raises(UserError, match="timeout_s"):
        load_pack("python", {"functions": [f"{module}:lookup"], "timeout_s": 0})


def make_task(**extra) -> Task:
    data = {
        "task_id": "slow",
        "suite": "golden",
        "description": "d",
        "inputs": {"prompt": "look it up"},
        "graders": [{"type": "contains", "value": "gave up"}],
        "tracked_metrics": ["pass^k"],
    }
    data.update(extra)
    return Task.model_validate(data)


SLOW_THEN_ANSWER = """
default:
  - tool_calls: [{name: sleepy, arguments: {}}]
  - tool_calls: [{name: quick, arguments: {}}]
  - content: the lookup was too slow, gave up
"""


def agent_run(tmp_path: Path, limits: AgentLimits, **box_kwargs):
    script = tmp_path / "script.yaml"
    script.write_text(SLOW_THEN_ANSWER, encoding="utf-8")
    model = create_model(f"scripted:{script}")
    toolbox = box(tmp_path, sleepy, quick, **box_kwargs)
    return asyncio.run(ToolLoopAgent().run(make_task(), tmp_path, toolbox, model, limits))


def test_the_trial_goes_on_after_a_tool_runs_out_of_time(tmp_path):
    run = agent_run(tmp_path, AgentLimits(max_turns=5), call_timeout_s=0.3)
    assert run.failure is None
    assert [(c.name, c.ok) for c in run.tool_calls] == [("sleepy", False), ("quick", True)]
    assert "no result within 0.3s" in run.tool_calls[0].result
    assert run.final_text == "the lookup was too slow, gave up"


def test_the_trial_timeout_also_bounds_a_tool_call(tmp_path):
    run = agent_run(tmp_path, AgentLimits(max_turns=5, timeout_s=0.5), call_timeout_s=600)
    assert run.failure == "timeout"
    assert run.tool_calls == []


def write_suite(tmp_path: Path, tools_entry: str, script: dict, graders: str) -> tuple[Path, Path]:
    suite = tmp_path / "suite"
    (suite / "fixtures" / "basic").mkdir(parents=True)
    (suite / "fixtures" / "basic" / "aaa.md").write_text("intro\n" + "a" * 40 + "!\nend\n")
    (suite / "slow.yaml").write_text(
        "task_id: slow\nsuite: golden\ndescription: d\n"
        "inputs: {prompt: look it up}\n"
        f"environment: {{fixture: basic, tools: {tools_entry}}}\n"
        f"graders: {graders}\n"
        "tracked_metrics: [pass^k]\ntrials: {k: 2}\n",
        encoding="utf-8",
    )
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"default": script["turns"]}), encoding="utf-8")
    return suite, path


def tool_results(run_dir: Path, line: ResultLine) -> list[str]:
    return RunDir.open(run_dir).transcript(line).tool_results


def test_a_run_with_a_slow_python_tool_completes(tmp_path):
    module = write_tools_module(tmp_path)
    entry = f'[{{python: {{functions: ["{module}:slow_lookup"], timeout_s: 0.3}}}}]'
    turns = [
        {"tool_calls": [{"name": "slow_lookup", "arguments": {"key": "k"}}]},
        {"content": "the lookup was too slow, gave up"},
    ]
    graders = "[{type: contains, value: gave up}]"
    suite, script = write_suite(tmp_path, entry, {"turns": turns}, graders)
    run = trialrun.run(suite, [f"scripted:{script}"], out=tmp_path / "out")
    assert [line.solve for line in run.results] == [True, True]
    for line in run.results:
        assert [call["ok"] for call in line.tool_calls] == [False]
        [result] = tool_results(run.path, line)
        assert result.startswith("slow_lookup: no result within 0.3s")


def test_a_run_with_a_catastrophic_regex_search_completes(tmp_path):
    """In a child process: `re` would hold the GIL, and no in-process guard could fire."""
    search = {"name": "find_files_by_content"}
    turns = [
        {"tool_calls": [{**search, "arguments": {"query": "(a+)+$", "useRegex": True}}]},
        {"tool_calls": [{**search, "arguments": {"query": "(a|aa)+$", "useRegex": True}}]},
        {"content": "no match"},
    ]
    graders = "[{type: contains, value: no match}]"
    suite, script = write_suite(tmp_path, "[vault]", {"turns": turns}, graders)
    main = (
        "from trialrun.tools.vault import _search; _search.REGEX_TIMEOUT_S = 0.5; "
        "from trialrun.cli import main; main()"
    )
    args = ["run", str(suite), "-m", f"scripted:{script}", "--out", str(tmp_path / "out")]
    proc = subprocess.run(
        [sys.executable, "-c", main, *args, "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = Path(json.loads(proc.stdout)["run_dir"])
    lines = RunDir.open(run_dir).results()
    assert [line.solve for line in lines] == [True, True]
    for line in lines:
        assert [call["ok"] for call in line.tool_calls] == [True, False]
        first, second = tool_results(run_dir, line)
        assert "aaa.md" not in first
        assert second.startswith("find_files_by_content: pattern too slow: '(a|aa)+$'")


def test_ctrl_c_during_a_hanging_tool_ends_the_run_with_results_written(tmp_path):
    started = tmp_path / "started"
    module = tmp_path / "hang_tools.py"
    module.write_text(
        "import pathlib, time\n"
        f"FIRST = pathlib.Path({str(tmp_path / 'first')!r})\n"
        f"STARTED = pathlib.Path({str(started)!r})\n"
        "def hang(ctx) -> str:\n"
        '    """The first call answers; the next ones hang."""\n'
        "    if not FIRST.exists():\n"
        "        FIRST.touch()\n"
        "        return 'ok'\n"
        "    STARTED.touch()\n"
        "    time.sleep(3600)\n"
        "    return 'late'\n",
        encoding="utf-8",
    )
    entry = f'[{{python: {{functions: ["{module}:hang"], timeout_s: 3600}}}}]'
    turns = [{"tool_calls": [{"name": "hang", "arguments": {}}]}, {"content": "done"}]
    suite, script = write_suite(
        tmp_path, entry, {"turns": turns}, "[{type: contains, value: done}]"
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from trialrun.cli import main; main()", "run", str(suite),
         "-m", f"scripted:{script}", "-j", "1", "--out", str(out)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        for _ in range(1200):
            if started.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert started.exists(), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    [run_dir] = [p for p in out.iterdir() if p.is_dir()]
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["solve"] is True
    assert json.loads((run_dir / "summary.json").read_text())["finished_trials"] == 1
