"""`code_interpreter` and `shell_exec` run in the bwrap jail: no network, the workspace
the only writable place, bounded output; a timeout, memory exhaustion and a missing jail
are tool errors the agent sees."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest
from tools_support import call, settings

from trialrun.errors import UserError
from trialrun.sandbox import jail_available
from trialrun.tools import load_pack
from trialrun.tools._jailed import KEEP_BYTES

jailed = pytest.mark.skipif(not jail_available(), reason="bwrap does not work here")
QUICK = {"timeout_s": 5, "memory_mb": 256}


@jailed
def test_code_runs_in_the_workspace(tmp_path: Path) -> None:
    code = "import os; print(os.getcwd()); open('out.txt', 'w').write('hi')"
    result = call("code_interpreter", tmp_path, QUICK, code=code)
    assert result.ok, result.content
    assert result.content == f"=== STDOUT ===\n{tmp_path}"
    assert (tmp_path / "out.txt").read_text() == "hi"


@jailed
def test_a_failing_program_is_an_error_with_its_output(tmp_path: Path) -> None:
    result = call("code_interpreter", tmp_path, QUICK, code="print('before'); 1/0")
    assert not result.ok
    assert result.content.startswith("code_interpreter: exit status 1\n=== STDOUT ===\nbefore")
    assert "ZeroDivisionError" in result.content


@jailed
def test_no_network_and_nothing_writable_outside(tmp_path: Path) -> None:
    code = (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=2); print('net')\n"
        "except OSError as e: print('no net', e.errno)\n"
        "try:\n"
        "    open('/usr/pwned', 'w'); print('wrote')\n"
        "except OSError as e: print('read-only', e.errno)\n"
    )
    result = call("code_interpreter", tmp_path, QUICK, code=code)
    assert result.ok, result.content
    lines = result.content.splitlines()[1:]
    assert lines[0].startswith("no net") and lines[1] == "read-only 30"


@jailed
def test_the_host_home_and_environment_are_not_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-visible-only-outside")
    code = "import os; print(os.path.exists(os.path.expanduser('/root/.bashrc'))); " \
           "print(os.environ.get('OPENAI_API_KEY'))"
    result = call("code_interpreter", tmp_path, QUICK, code=code)
    assert result.content == "=== STDOUT ===\nFalse\nNone"


@jailed
def test_an_infinite_loop_stops_at_the_time_limit(tmp_path: Path) -> None:
    code = "print('go', flush=True)\nwhile True: pass"
    result = call("code_interpreter", tmp_path, {"timeout_s": 2}, code=code)
    assert not result.ok
    assert result.content == (
        "code_interpreter: stopped after 2s (the time limit); output so far:\n=== STDOUT ===\ngo"
    )


@jailed
def test_memory_exhaustion_is_a_tool_error(tmp_path: Path) -> None:
    result = call("code_interpreter", tmp_path, QUICK, code="x = bytearray(2 * 1024**3)")
    assert not result.ok
    assert result.content.startswith("code_interpreter: out of memory (the limit is 256 MB)")


@jailed
def test_huge_output_is_cut_to_a_bound(tmp_path: Path) -> None:
    code = "import sys\nfor i in range(200_000): sys.stdout.write(f'line {i}\\n')"
    result = call("code_interpreter", tmp_path, QUICK, code=code)
    assert result.ok
    assert len(result.content) < 2 * KEEP_BYTES + 200
    assert "bytes of output left out" in result.content
    assert result.content.rstrip().endswith("line 199999")


@jailed
def test_a_fork_bomb_ends_with_the_time_limit_leaving_nothing(tmp_path: Path) -> None:
    marker = "4242.5"
    result = call(
        "shell_exec", tmp_path, {"timeout_s": 2},
        command=f"while true; do sleep {marker} & done",
    )
    assert not result.ok and "stopped after 2s (the time limit)" in result.content
    left = [p for p in psutil.process_iter(["cmdline"]) if marker in (p.info["cmdline"] or [])]
    assert left == []


@jailed
def test_shell_exec_takes_openjarvis_arguments(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f.txt").write_text("x")
    result = call(
        "shell_exec", tmp_path, QUICK,
        command="pwd; ls; echo up > ../top.txt; echo err >&2", timeout=3, working_dir="sub",
        env_passthrough=["HOME"],
    )
    assert result.ok, result.content
    assert result.content == f"=== STDOUT ===\n{tmp_path / 'sub'}\nf.txt\n=== STDERR ===\nerr"
    assert (tmp_path / "top.txt").read_text() == "up\n"  # the whole workspace is there
    escape = call("shell_exec", tmp_path, QUICK, command="ls", working_dir="..")
    assert not escape.ok and "outside the workspace" in escape.content
    status = call("shell_exec", tmp_path, QUICK, command="exit 3")
    assert not status.ok and status.content == "shell_exec: exit status 3\n(no output)"


@jailed
def test_a_call_may_ask_less_time_never_more(tmp_path: Path) -> None:
    result = call("shell_exec", tmp_path, {"timeout_s": 2}, command="sleep 30", timeout=600)
    assert "stopped after 2s" in result.content
    shorter = call("shell_exec", tmp_path, {"timeout_s": 20}, command="sleep 30", timeout=1)
    assert "stopped after 1s" in shorter.content


def test_without_the_jail_code_is_refused_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIALRUN_JAIL", "off")
    (tmp_path / "trialrun.toml").write_text("[tools]\nunjailed = true\n")
    monkeypatch.chdir(tmp_path)  # the working directory's opt-in is not the run's
    for pack, args in (("code_interpreter", {"code": "open('ran', 'w')"}),
                       ("shell_exec", {"command": "touch ran"})):
        result = call(pack, tmp_path, QUICK, **args)
        assert not result.ok
        assert result.content.startswith(f"{pack}: refused: the bwrap jail does not work here")
        assert "[tools] unjailed = true" in result.content
    assert not (tmp_path / "ran").exists()


def test_the_project_may_opt_in_to_unjailed_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIALRUN_JAIL", "off")
    (tmp_path / "trialrun.toml").write_text("[tools]\nunjailed = false\n")
    monkeypatch.chdir(tmp_path)  # the working directory's file is not the run's
    opted_in = settings({"tools": {"unjailed": True}})
    ws = tmp_path / "ws"
    ws.mkdir()
    result = call("code_interpreter", ws, QUICK, opted_in, code="print(6 * 7)")
    assert result.ok and result.content == "=== STDOUT ===\n42"
    shell = call("shell_exec", ws, QUICK, opted_in, command="echo 42")
    assert shell.ok and shell.content == "=== STDOUT ===\n42"
    memory = call("code_interpreter", ws, QUICK, opted_in, code="x = bytearray(2 * 1024**3)")
    assert "out of memory" in memory.content  # the limits still apply


def test_options_are_checked_at_load() -> None:
    with pytest.raises(UserError, match="unknown option"):
        load_pack("code_interpreter", {"timeout": 5})
    with pytest.raises(UserError, match="memory_mb must be"):
        load_pack("shell_exec", {"memory_mb": -1})
    (tool,) = load_pack("code_interpreter", {"timeout_s": 5})
    assert tool.parameters["required"] == ["code"] and tool.timeout_s == 20


def test_oversized_code_is_refused(tmp_path: Path) -> None:
    result = call("code_interpreter", tmp_path, QUICK, code="#" * 100_001)
    assert not result.ok and "at most 100000" in result.content
    assert os.listdir(tmp_path) == []
