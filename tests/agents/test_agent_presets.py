"""Agent presets without their real binaries: lookup, launch files, --agent-api, warnings."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun import run as trialrun_run
from trialrun.agents import AgentLimits
from trialrun.agents.command import API_ENV, api_env
from trialrun.agents.factory import make_agent
from trialrun.agents.preset import PresetAgent
from trialrun.agents.presets import (
    LaunchContext,
    find_binary,
    get_preset,
    install_prefix,
    preset_names,
)
from trialrun.errors import UserError
from trialrun.models import create_model
from trialrun.runner._agent_tools import preset_tool_warnings
from trialrun.tasks import Task
from trialrun.tools import Toolbox, ToolContext

ROOT = Path(__file__).resolve().parents[2]


def _bare_path(tmp_path: Path) -> str:
    """A PATH with none of the agent CLIs on it."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return str(empty)


def _fake_install(tmp_path: Path, name: str) -> Path:
    """A trialrun-owned prefix holding an executable where npm puts the binary."""
    preset = get_preset(name)
    assert preset is not None
    agents = tmp_path / "agents"
    binary = install_prefix(preset).relative_to(install_prefix(preset).parent)
    target = agents / binary / "bin" / preset.binary
    target.parent.mkdir(parents=True)
    target.write_text("#!/bin/sh\necho installed\n")
    target.chmod(0o755)
    return agents


def test_the_three_presets_are_registered_with_pins_apis_and_tools():
    assert preset_names() == ["claude-code", "codex", "gemini-cli"]
    apis = {name: get_preset(name).api for name in preset_names()}
    assert apis == {"gemini-cli": "gemini", "claude-code": "anthropic", "codex": "responses"}
    assert "write_file" in get_preset("gemini-cli").tools
    assert {"Write", "Edit", "Bash"} <= set(get_preset("claude-code").tools)
    assert "exec_command" in get_preset("codex").tools


def test_a_missing_preset_binary_is_one_line_with_the_install_command(tmp_path):
    env = {
        **os.environ,
        "PATH": _bare_path(tmp_path),
        "TRIALRUN_AGENTS_DIR": str(tmp_path / "none"),
        "PYTHONPATH": str(ROOT / "src"),
    }
    task = ROOT / "examples" / "agents" / "create_note.json"
    script = ROOT / "examples" / "agents" / "gemini-good.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(task), "--agent", "gemini-cli",
         "-m", f"scripted:{script}", "--out", str(tmp_path / "results")],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "trialrun: gemini-cli is not installed: run `trialrun agents install gemini-cli` "
        "(npm @google/gemini-cli@0.61.0), or put `gemini` on PATH"
    )
    assert "Traceback" not in done.stderr


def test_a_binary_in_trialruns_install_folder_is_found_after_path(tmp_path, monkeypatch):
    agents = _fake_install(tmp_path, "codex")
    monkeypatch.setenv("PATH", _bare_path(tmp_path))
    monkeypatch.setenv("TRIALRUN_AGENTS_DIR", str(agents))
    found = find_binary(get_preset("codex"))
    assert found is not None
    assert found.binary == str(agents / "codex-0.169.0" / "bin" / "codex")
    assert found.prefix == agents / "codex-0.169.0"
    assert find_binary(get_preset("gemini-cli")) is None


def test_agents_list_says_installed_or_missing_with_the_install_command(tmp_path):
    agents = _fake_install(tmp_path, "claude-code")
    env = {
        **os.environ,
        "PATH": _bare_path(tmp_path),
        "TRIALRUN_AGENTS_DIR": str(agents),
        "PYTHONPATH": str(ROOT / "src"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "agents", "list"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    claude = next(line for line in lines if line.startswith("claude-code"))
    assert f"installed ({agents}/claude-code-2.1.328/bin/claude)" in claude
    assert any(line.startswith("codex") and " missing " in line for line in lines)
    assert "install: trialrun agents install gemini-cli" in done.stdout


def test_an_unknown_preset_name_is_one_line_naming_the_presets():
    with pytest.raises(UserError, match=r"--agent gemini: not an agent preset \(claude-code, "):
        make_agent("gemini", None)
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "agents", "install", "gemini"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert done.returncode == 2
    assert "did you mean gemini-cli?" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["gemini-cli", "claude-code", "codex"])
def test_launch_writes_config_into_the_private_home_pointing_at_the_proxy(tmp_path, name):
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    launch = get_preset(name).launch(LaunchContext("do it", home, ws, "http://127.0.0.1:9"))
    assert "do it" in launch.args
    assert list(ws.iterdir()) == []  # nothing in the workspace the graders diff
    values = " ".join(launch.env.values())
    if name == "gemini-cli":
        settings = json.loads((home / ".gemini" / "settings.json").read_text())
        assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
        assert settings["privacy"]["usageStatisticsEnabled"] is False
        assert launch.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9"
        assert "--yolo" in launch.args
    elif name == "claude-code":
        assert launch.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
        assert launch.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
        assert "--dangerously-skip-permissions" in launch.args
    else:
        config = tomllib.loads((home / ".codex" / "config.toml").read_text())
        provider = config["model_providers"][config["model_provider"]]
        assert provider["base_url"] == "http://127.0.0.1:9/v1"
        assert provider["wire_api"] == "responses"
        assert launch.env["CODEX_HOME"] == str(home / ".codex")
    assert "sk-" not in values  # a throwaway key, never a real one


@given(
    api=st.sampled_from([None, *API_ENV]),
    port=st.integers(min_value=1, max_value=65535),
)
def test_api_env_points_exactly_the_chosen_apis_clients_at_the_proxy(api, port):
    root = f"http://127.0.0.1:{port}"
    env = api_env(api, root)
    if api is None:  # every URL, and only OpenAI's key name
        urls = {k for names in API_ENV.values() for k in names if k.endswith("_URL")}
        expected = urls | {"OPENAI_API_KEY", "TRIALRUN_PROXY_URL"}
    else:
        expected = set(API_ENV[api]) | {"TRIALRUN_PROXY_URL"}
    assert set(env) == expected
    assert all(v == "trialrun" for k, v in env.items() if k.endswith("_KEY"))
    assert all(root in v for k, v in env.items() if k.endswith("_URL"))
    if api in ("anthropic", "gemini"):
        assert env["TRIALRUN_PROXY_URL"] == root
    else:
        assert env["TRIALRUN_PROXY_URL"] == root + "/v1"


GEMINI_AGENT = r'''
import json, os, sys, urllib.parse, urllib.request
assert "OPENAI_BASE_URL" not in os.environ, "only the Gemini variables are exported"
model = urllib.parse.quote(os.environ["TRIALRUN_MODEL"], safe="")  # the run's model, by name
url = os.environ["GOOGLE_GEMINI_BASE_URL"] + f"/v1beta/models/{model}:generateContent"
tools = [{"functionDeclarations": [{"name": "write_file", "parameters": {"type": "object"}}]}]
contents = [{"role": "user", "parts": [{"text": sys.argv[1]}]}]
while True:
    body = json.dumps({"contents": contents, "tools": tools}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json",
                                                 "x-goog-api-key": os.environ["GEMINI_API_KEY"]})
    reply = json.load(urllib.request.urlopen(request))
    parts = reply["candidates"][0]["content"]["parts"]
    contents.append({"role": "model", "parts": parts})
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    if not calls:
        print("".join(p.get("text", "") for p in parts))
        break
    for call in calls:
        args = call["args"]
        open(args["file_path"], "w").write(args["content"])
        contents.append({"role": "user", "parts": [{"functionResponse": {
            "name": call["name"], "response": {"output": "wrote " + args["file_path"]}}}]})
'''

SCRIPT = """
tasks:
  note:
    - tool_calls: [{name: write_file, arguments: {file_path: note.md, content: buy milk}}]
    - content: Created note.md.
"""


def _task(graders: list[dict]) -> Task:
    return Task.model_validate(
        {
            "task_id": "note",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "Create note.md containing 'buy milk'."},
            "graders": graders,
            "tracked_metrics": ["pass^k"],
        }
    )


def test_agent_cmd_speaking_gemini_gets_only_gemini_variables_and_is_recorded(tmp_path):
    agent_file = tmp_path / "gemini_agent.py"
    agent_file.write_text(GEMINI_AGENT)
    script = tmp_path / "model.yaml"
    script.write_text(SCRIPT)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(agent_file))} {{prompt}}"
    agent = make_agent(None, command, agent_api="gemini")
    ws = tmp_path / "ws"
    ws.mkdir()
    task = _task([{"type": "contains", "value": "note"}])
    box = Toolbox([], ToolContext(ws, task.task_id, {"trial": 0}))
    model = create_model(f"scripted:{script}")
    run = asyncio.run(agent.run(task, ws, box, model, AgentLimits(max_turns=10, timeout_s=60)))
    assert run.failure is None, run.failure_message
    assert (ws / "note.md").read_text() == "buy milk"
    assert [(c.name, c.arguments) for c in run.tool_calls] == [
        ("write_file", {"file_path": "note.md", "content": "buy milk"})
    ]
    assert run.final_text == "Created note.md."


def test_agent_api_is_checked_before_the_run(tmp_path):
    with pytest.raises(UserError, match="--agent-api grpc: unknown; use one of chat, responses"):
        make_agent(None, "true", agent_api="grpc")
    with pytest.raises(UserError, match="--agent-api: only with --agent-cmd"):
        make_agent("gemini-cli", None, agent_api="gemini")


def test_a_grader_naming_a_tool_the_preset_lacks_warns_with_its_tools(tmp_path, monkeypatch):
    agents = _fake_install(tmp_path, "claude-code")
    monkeypatch.setenv("PATH", _bare_path(tmp_path))
    monkeypatch.setenv("TRIALRUN_AGENTS_DIR", str(agents))
    agent = make_agent("claude-code", None)
    assert isinstance(agent, PresetAgent)
    task = _task(
        [
            {"type": "expectedTools", "tools": ["write_file", "Write"]},
            {"type": "toolArgs", "tool": "Edit", "args": {"file_path": "note.md"}},
        ]
    )
    warnings = preset_tool_warnings(agent, [task])
    assert len(warnings) == 1
    assert warnings[0].startswith(
        "note: expectedTools names tool 'write_file', which claude-code does not have"
    )
    assert "its tools: Write, Edit, Read, Bash" in warnings[0]


def test_run_agent_in_trialrun_toml_picks_the_preset(tmp_path, monkeypatch):
    """`[run] agent = "claude-code"`: the run uses the preset without --agent (a missing
    binary says so, which proves the preset was chosen); a bad value is one line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", _bare_path(tmp_path))
    monkeypatch.setenv("TRIALRUN_AGENTS_DIR", str(tmp_path / "none"))
    script = ROOT / "examples" / "agents" / "claude-good.yaml"
    task = ROOT / "examples" / "agents" / "create_note.json"
    (tmp_path / "trialrun.toml").write_text('[run]\nagent = "claude-code"\n')
    with pytest.raises(UserError, match="claude-code is not installed: run `trialrun agents"):
        trialrun_run(task, models=[f"scripted:{script}"], out=tmp_path / "r")
    (tmp_path / "trialrun.toml").write_text("[run]\nagent = 3\n")
    with pytest.raises(UserError, match=r"trialrun.toml: \[run\] agent: must be a preset"):
        trialrun_run(task, models=[f"scripted:{script}"], out=tmp_path / "r")


def test_cli_agent_api_reaches_the_agent_and_a_bad_one_is_one_line(tmp_path):
    # a host's own OPENAI_BASE_URL never reaches an agent that speaks another API
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENAI_BASE_URL": "http://x"}
    task = ROOT / "examples" / "agents" / "create_note.json"
    script = ROOT / "examples" / "agents" / "gemini-good.yaml"
    base = [sys.executable, "-m", "trialrun", "run", str(task), "-m", f"scripted:{script}",
            "--out", str(tmp_path / "r")]  # fmt: skip
    bad = subprocess.run(
        [*base, "--agent-cmd", "true", "--agent-api", "grpc"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.startswith("trialrun: --agent-api grpc: unknown; use one of chat")
    # a command printing which base URLs it was given: only Anthropic's
    probe = (f"{shlex.quote(sys.executable)} -c \"import os; print(sorted(k for k in os.environ "
             "if k.endswith('_BASE_URL')))\"")
    good = subprocess.run(
        [*base, "--agent-cmd", probe, "--agent-api", "anthropic", "--json"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    run_dir = next((tmp_path / "r").iterdir())
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert line["final_text"] == "['ANTHROPIC_BASE_URL']", good.stderr


def test_agent_api_is_kept_in_run_json_and_a_resume_uses_it(tmp_path):
    from trialrun.rundir import RunDir
    from trialrun.runner._config import RunConfig
    from trialrun.runner._manifest import resumed_config

    task = ROOT / "examples" / "agents" / "create_note.json"
    script = ROOT / "examples" / "agents" / "claude-good.yaml"
    outcome = trialrun_run(
        task, models=[f"scripted:{script}"], agent_cmd="true", agent_api="anthropic",
        out=tmp_path / "r",
    )  # fmt: skip
    assert json.loads((outcome.path / "run.json").read_text())["agent_api"] == "anthropic"
    manifest = RunDir.open(outcome.path).manifest()
    resumed = resumed_config(manifest, RunConfig(resume=outcome.path), [])
    assert resumed.agent_api == "anthropic" and resumed.agent_cmd == "true"


@pytest.mark.parametrize("name", ["gemini-cli", "claude-code", "codex"])
def test_a_preset_serves_the_model_names_its_cli_asks_for(tmp_path, name):
    """The model a preset's launch names is the first of its served names; Claude Code's
    side-request models are all pinned to it."""
    preset = get_preset(name)
    assert preset is not None and preset.models
    launch = preset.launch(LaunchContext("hi", tmp_path, tmp_path, "http://127.0.0.1:9"))
    configured = (tmp_path / ".codex" / "config.toml").read_text() if name == "codex" else ""
    assert preset.models[0] in [*launch.args, *launch.env.values()] or (
        f'model = "{preset.models[0]}"' in configured
    )
    if name == "claude-code":
        pinned = {k: v for k, v in launch.env.items() if k.endswith("_MODEL")}
        assert "ANTHROPIC_SMALL_FAST_MODEL" in pinned
        assert set(pinned.values()) == {preset.models[0]}
