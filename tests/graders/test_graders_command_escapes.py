"""`command` graders whose processes try to outlive them: nothing hangs, nothing survives.

Every case runs twice: in the bwrap jail (skipped where bwrap does not work) and with the
fallback forced (TRIALRUN_JAIL=off: a per-call marker in the environment, swept with
psutil). Each test's `sleep` gets a unique argument, so a survivor can't be confused with
another test's. pytest-timeout is the guard against hangs; no test looks at the clock.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import sys
from pathlib import Path

import psutil
import pytest
from graders_support import grade, make_trial

from trialrun.graders import parse_grader, run_grader
from trialrun.sandbox import jail_available

pytestmark = pytest.mark.timeout(120)

_SERIAL = itertools.count(1)


def unique_sleep() -> str:
    """A `sleep` argument no other process uses: 1000.<pid><n> seconds."""
    return f"1000.{os.getpid()}{next(_SERIAL)}"


def survivors(arg: str) -> list[psutil.Process]:
    """Live (non-zombie) `sleep ARG` processes."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if proc.info["cmdline"] == ["sleep", arg] and proc.info["status"] != "zombie":
            found.append(proc)
    return found


@pytest.fixture(params=["bwrap", "sweep"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "bwrap":
        monkeypatch.delenv("TRIALRUN_JAIL", raising=False)
        if not jail_available():
            pytest.skip("bwrap is not installed or does not work here")
    else:
        monkeypatch.setenv("TRIALRUN_JAIL", "off")
    return request.param


@pytest.fixture(autouse=True)
def _no_leftovers():
    """Whatever a failing test leaves behind is killed, so it can't disturb later tests."""
    yield
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if len(cmd) == 2 and cmd[0] == "sleep" and cmd[1].startswith(f"1000.{os.getpid()}"):
            proc.kill()


def run(command, ws: Path, **config):
    return grade({"type": "command", "run": command, **config}, make_trial(workspace=ws))


def test_setsid_child_with_a_timeout_ends_and_leaves_nothing(mode, tmp_path):
    a, b = unique_sleep(), unique_sleep()
    v = run(f"setsid sleep {a} & sleep {b}", tmp_path, timeout_s=1)
    assert v.passed is False and v.details["timed_out"] is True
    assert v.details["sandbox"] == mode
    assert survivors(a) == [] and survivors(b) == []


def test_double_fork_is_judged_by_its_exit_and_swept(mode, tmp_path):
    a = unique_sleep()
    script = (
        "import os, sys\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execvp('sleep', ['sleep', '{a}'])\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "print('parent done')\n"
    )
    v = run([sys.executable, "-c", script], tmp_path, timeout_s=30)
    assert v.passed is True and v.details["exit_code"] == 0
    assert v.details["stdout"] == "parent done\n"
    assert survivors(a) == []


def test_nohup_child_passes_on_exit_0_and_is_killed_afterwards(mode, tmp_path):
    a = unique_sleep()
    v = run(f"nohup sleep {a} >/dev/null 2>&1 & exit 0", tmp_path, timeout_s=30)
    assert v.passed is True and v.details["exit_code"] == 0
    assert v.details["timed_out"] is False
    assert survivors(a) == []


def test_subshell_background_child_reports_exit_0_not_a_timeout(mode, tmp_path):
    a = unique_sleep()
    v = run(f"(sleep {a} &); exit 0", tmp_path, timeout_s=2)
    assert v.details["timed_out"] is False and v.details["exit_code"] == 0
    assert v.passed is True and "reason" not in v.details
    assert survivors(a) == []


def test_output_is_captured_although_a_child_keeps_it_open(mode, tmp_path):
    a = unique_sleep()
    v = run(f"echo out; echo err >&2; setsid sleep {a} & exit 3", tmp_path, timeout_s=30)
    assert v.passed is False and v.details["exit_code"] == 3 and v.details["timed_out"] is False
    assert v.details["stdout"] == "out\n" and v.details["stderr"] == "err\n"
    assert survivors(a) == []


def test_a_child_that_clears_its_environment_dies_in_the_jail(tmp_path, monkeypatch):
    """The jail's pid namespace catches what the environment marker cannot."""
    monkeypatch.delenv("TRIALRUN_JAIL", raising=False)
    if not jail_available():
        pytest.skip("bwrap is not installed or does not work here")
    a = unique_sleep()
    v = run(f"env -i setsid sleep {a} & exit 0", tmp_path, timeout_s=30)
    assert v.passed is True and v.details["sandbox"] == "bwrap"
    assert survivors(a) == []


def test_the_jail_allows_writes_to_the_workspace_only(tmp_path, monkeypatch):
    monkeypatch.delenv("TRIALRUN_JAIL", raising=False)
    if not jail_available():
        pytest.skip("bwrap is not installed or does not work here")
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = Path.home() / f"trialrun-jail-probe-{os.getpid()}"  # not under /tmp
    script = (
        "touch made-here && echo private > /tmp/jail-probe && cat /tmp/jail-probe && "
        f"(touch {outside} 2>/dev/null && echo escaped || echo read-only)"
    )
    try:
        v = run(script, ws, timeout_s=30)
        assert v.passed is True, v.details
        assert v.details["stdout"] == "private\nread-only\n"
        assert (ws / "made-here").exists() and not outside.exists()
        assert not Path("/tmp/jail-probe").exists()
    finally:
        outside.unlink(missing_ok=True)


def test_the_jail_has_no_network_unless_the_trial_allows_it(tmp_path, monkeypatch):
    monkeypatch.delenv("TRIALRUN_JAIL", raising=False)
    if not jail_available():
        pytest.skip("bwrap is not installed or does not work here")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5)"
        probe = [sys.executable, "-c", connect]
        config = parse_grader({"type": "command", "run": probe, "timeout_s": 30})
        closed = make_trial(workspace=tmp_path)
        assert asyncio.run(run_grader(config, closed)).passed is False
        open_ = make_trial(workspace=tmp_path)
        open_.extra["network"] = True
        assert asyncio.run(run_grader(config, open_)).passed is True


def test_a_requested_jail_that_is_unavailable_is_undetermined(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIALRUN_JAIL", "off")
    trial = make_trial(workspace=tmp_path)
    trial.extra["jail"] = True
    v = asyncio.run(run_grader(parse_grader({"type": "command", "run": "true"}), trial))
    assert v.passed is None and "bwrap" in v.details["error"]


def test_jail_available_honours_the_off_switch(monkeypatch):
    monkeypatch.setenv("TRIALRUN_JAIL", "off")
    assert jail_available() is False
