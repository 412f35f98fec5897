"""The three presets end to end with their real binaries (npm), driven by scripted models.

A binary not on PATH nor in trialrun's install folder is installed there with npm at the
pinned version; the tests skip, saying why, only when that install cannot be done (no
npm, or no registry).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trialrun.agents.presets import find_binary, get_preset, npm_install
from trialrun.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "agents"
# preset → (its scripted files' prefix, the tool its good script writes with, its HOME folder)
PRESETS = {
    "gemini-cli": ("gemini", "write_file", ".gemini"),
    "claude-code": ("claude", "Write", ".claude"),
    "codex": ("codex", "exec_command", ".codex"),
}


def _installed(name: str) -> None:
    preset = get_preset(name)
    assert preset is not None
    if find_binary(preset) is not None:
        return
    try:
        npm_install(preset)
    except UserError as exc:
        pytest.skip(f"{name} is not installed and npm could not install it: {exc}")


def _task_file(folder: Path, name: str) -> Path:
    _, tool, home = PRESETS[name]
    task = {
        "task_id": "agent-create-note",
        "suite": "golden",
        "description": "The agent writes a file with its own tool.",
        "inputs": {"prompt": "Create a file note.md containing 'buy milk'."},
        "graders": [
            {"type": "fileContains", "path": "note.md", "value": "buy milk"},
            {"type": "expectedTools", "tools": [tool]},
            {"type": "fileAbsent", "path": home},  # its private HOME is not the workspace
        ],
        "tracked_metrics": ["pass^k", "solve^k"],
        "trials": {"k": 1},
    }
    path = folder / "task.json"
    path.write_text(json.dumps(task))
    return path


def _trialrun(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "trialrun", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip


def _run(tmp_path: Path, name: str, script: str) -> tuple[dict, Path, str]:
    task = _task_file(tmp_path, name)
    out = tmp_path / "results"
    scratch = tmp_path / "scratch"  # TMPDIR: where the trial's private HOME is made
    scratch.mkdir()
    done = _trialrun(
        "run", str(task), "--agent", name, "-m", f"scripted:{EXAMPLES / script}",
        "--out", str(out), "-k", "1", cwd=tmp_path, env={"TMPDIR": str(scratch)},
    )  # fmt: skip
    homes = [p.name for p in scratch.iterdir() if p.name.startswith("trialrun-")]
    assert homes == [], "the private HOME outlived its trial"
    runs = sorted(out.iterdir()) if out.is_dir() else []
    assert runs, done.stderr
    line = json.loads((runs[-1] / "results.jsonl").read_text().splitlines()[0])
    return line, runs[-1], done.stdout + done.stderr


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_good_script_makes_the_real_agent_solve_with_its_own_tool(tmp_path, name):
    _installed(name)
    prefix, tool, _ = PRESETS[name]
    line, run_dir, output = _run(tmp_path, name, f"{prefix}-good.yaml")
    assert line["error"] is None, output
    assert [v["grader"] for v in line["verdicts"] if not v["passed"]] == [], line["verdicts"]
    assert line["pass"] is True and line["solve"] is True
    assert [c["name"] for c in line["tool_calls"]] == [tool]
    assert line["tool_calls"][0]["ok"] is True
    shown = _trialrun("show", str(run_dir), "agent-create-note", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert f"→ {tool}(" in shown.stdout  # the agent's own call, from the wire


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_bad_script_fails_the_file_grader_and_still_completes(tmp_path, name):
    _installed(name)
    prefix, tool, _ = PRESETS[name]
    line, _, output = _run(tmp_path, name, f"{prefix}-bad.yaml")
    assert line["error"] is None, output
    failed = [v["grader"] for v in line["verdicts"] if not v["passed"]]
    assert failed == ["fileContains"]  # it wrote, with its tool, the wrong text
    assert line["pass"] is True and line["solve"] is False
    assert [c["name"] for c in line["tool_calls"]] == [tool]


def test_a_grader_naming_another_agents_tool_is_a_warning_in_the_real_run(tmp_path):
    _installed("claude-code")
    task = _task_file(tmp_path, "claude-code")
    data = json.loads(task.read_text())
    data["graders"][1]["tools"] = ["write_file"]  # gemini-cli's name, not Claude Code's
    task.write_text(json.dumps(data))
    done = _trialrun(
        "run", str(task), "--agent", "claude-code",
        "-m", f"scripted:{EXAMPLES / 'claude-good.yaml'}", "--out", str(tmp_path / "r"),
        cwd=tmp_path,
    )  # fmt: skip
    text = " ".join((done.stdout + done.stderr).split())
    assert "names tool 'write_file', which claude-code does not have" in text
    assert "its tools: Write, Edit, Read, Bash" in text


def test_agents_install_then_run_from_trialruns_folder_without_path(tmp_path):
    """`trialrun agents install` puts the pinned CLI in trialrun's folder; with nothing on
    PATH but node, the run finds it there (and the jail shows that folder)."""
    if subprocess.run(["npm", "ping"], capture_output=True, timeout=60).returncode != 0:
        pytest.skip("npm cannot reach its registry (npm ping failed)")
    bin_dir = tmp_path / "bin"  # node (the CLI's interpreter), bwrap, sh: not the agent
    bin_dir.mkdir()
    for program in ("node", "bwrap", "sh", "bash", "npm"):
        found = shutil.which(program)
        if found:
            (bin_dir / program).symlink_to(found)
    agents = tmp_path / "agents"
    env = {"TRIALRUN_AGENTS_DIR": str(agents)}
    installed = _trialrun("agents", "install", "gemini-cli", cwd=tmp_path, env=env)
    if installed.returncode != 0:
        pytest.skip(f"npm could not install gemini-cli: {installed.stderr.strip()}")
    assert (agents / "gemini-cli-0.61.0" / "bin" / "gemini").exists()
    task = _task_file(tmp_path, "gemini-cli")
    env["PATH"] = str(bin_dir)
    done = _trialrun(
        "run", str(task), "--agent", "gemini-cli",
        "-m", f"scripted:{EXAMPLES / 'gemini-good.yaml'}", "--out", str(tmp_path / "r"),
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    run_dir = next((tmp_path / "r").iterdir())
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert line["solve"] is True, line


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_real_agent_reaches_no_host_but_the_proxy(tmp_path, name):
    """Update checks, telemetry, plugin syncs off: every connect() of the whole process
    tree (DNS included) goes to loopback. Outside the jail, which would hide them."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    _installed(name)
    task = _task_file(tmp_path, name)
    trace = tmp_path / "trace"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TRIALRUN_JAIL": "off"}
    done = subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=connect", "-o", str(trace), sys.executable, "-m",
         "trialrun", "run", str(task), "--agent", name, "-m",
         f"scripted:{EXAMPLES / (PRESETS[name][0] + '-good.yaml')}", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    connects = [line for line in trace.read_text().splitlines() if "connect(" in line]
    inet = [line for line in connects if "AF_INET" in line]
    assert inet, "the agent never called the proxy"
    assert [line for line in inet if '"127.0.0.1"' not in line and '"::1"' not in line] == []


def test_a_jailed_agent_has_no_network_but_its_loopback(tmp_path):
    """In the jail the CLI sees one interface, lo: the proxy's port is bridged in."""
    from trialrun.sandbox import jail_available

    if not jail_available():
        pytest.skip("bubblewrap does not work here (apt-get install bubblewrap)")
    _installed("codex")
    script = tmp_path / "model.yaml"
    listing = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > ifaces.txt"
    script.write_text(json.dumps({"default": [
        {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": listing}}]},
        {"content": "Listed."},
    ]}))  # fmt: skip
    task = _task_file(tmp_path, "codex")
    data = json.loads(task.read_text())
    data["graders"] = [{"type": "fileContains", "path": "ifaces.txt", "value": "lo"}]
    task.write_text(json.dumps(data))
    done = _trialrun(
        "run", str(task), "--agent", "codex", "-m", f"scripted:{script}",
        "--out", str(tmp_path / "r"), "--keep-artifacts", cwd=tmp_path,
    )  # fmt: skip
    run_dir = next((tmp_path / "r").iterdir())
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert line["solve"] is True, (line["verdicts"], done.stderr)
    (listed,) = run_dir.glob("workspaces/**/ifaces.txt")
    assert listed.read_text().split() == ["lo"]


def test_tasks_naming_different_presets_run_each_with_its_own(tmp_path):
    """A task file's `agent:` picks the preset per task (no --agent): one run, Claude
    Code on one task and Codex on the other, each calling its own tools."""
    _installed("claude-code")
    _installed("codex")
    for name, task_id in (("claude-code", "by-claude"), ("codex", "by-codex")):
        data = json.loads(_task_file(tmp_path, name).read_text())
        data.update(task_id=task_id, agent=name)
        data["graders"] = data["graders"][:2]
        (tmp_path / f"{task_id}.json").write_text(json.dumps(data))
    (tmp_path / "task.json").unlink()
    script = tmp_path / "model.json"
    script.write_text(json.dumps({"tasks": {
        "by-claude": [{"tool_calls": [{"name": "Write", "arguments": {
            "file_path": "note.md", "content": "buy milk\n"}}]}, {"content": "Done."}],
        "by-codex": [{"tool_calls": [{"name": "exec_command", "arguments": {
            "cmd": "printf 'buy milk\\n' > note.md"}}]}, {"content": "Done."}],
    }}))  # fmt: skip
    done = _trialrun(
        "run", str(tmp_path / "by-claude.json"), str(tmp_path / "by-codex.json"),
        "-m", f"scripted:{script}", "--out", str(tmp_path / "r"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_dir = next((tmp_path / "r").iterdir())
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    calls = {line["task_id"]: [c["name"] for c in line["tool_calls"]] for line in lines}
    assert calls == {"by-claude": ["Write"], "by-codex": ["exec_command"]}
    assert all(line["solve"] is True for line in lines), [line["verdicts"] for line in lines]


@pytest.mark.local_model
def test_a_preset_on_the_local_model_says_its_prompt_is_over_the_context(tmp_path):
    """`-m local` with a preset: the CLI's own prompt (system prompt and tool schemas) is
    over the embedded model's 4096 tokens; the trial fails saying so, not silently."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not importable (pip install -e '.[local]')")
    _installed("codex")
    task = _task_file(tmp_path, "codex")
    done = _trialrun(
        "run", str(task), "--agent", "codex", "-m", "local", "--out", str(tmp_path / "r"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_dir = next((tmp_path / "r").iterdir())
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert line["error"]["kind"] == "context_overflow", line["error"]
    message = line["error"]["message"]
    assert message.startswith("the prompt (")
    assert "exceeds the local model's context (4096 tokens)" in message
    assert f"trialrun: agent-create-note#0: {message}" in done.stderr
