"""The command grader: exit code, output tails, timeout kills the process group."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from graders_support import grade, make_trial
from pydantic import ValidationError

from trialrun.graders import parse_grader, run_grader


def test_shell_command_pass_and_output(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("here")
    v = grade(
        {"type": "command", "run": "cat marker.txt; echo err >&2"}, make_trial(workspace=tmp_path)
    )
    assert v.passed is True
    assert v.details["exit_code"] == 0 and v.details["stdout"] == "here"
    assert v.details["stderr"] == "err\n" and v.details["timed_out"] is False


def test_argv_command_fail(tmp_path: Path) -> None:
    run = [sys.executable, "-c", "import sys; print('x' * 10000); sys.exit(3)"]
    v = grade({"type": "command", "run": run}, make_trial(workspace=tmp_path))
    assert v.passed is False and v.details["exit_code"] == 3
    assert len(v.details["stdout"]) <= 4001 and v.details["stdout"].endswith("x\n")
    ok = grade({"type": "command", "run": run, "expect_exit": 3}, make_trial(workspace=tmp_path))
    assert ok.passed is True


def test_runs_in_the_workspace(tmp_path: Path) -> None:
    v = grade(
        {"type": "command", "run": [sys.executable, "-c", "import os; print(os.getcwd())"]},
        make_trial(workspace=tmp_path),
    )
    assert v.details["stdout"].strip() == os.path.realpath(tmp_path)


def test_timeout_kills_the_process_group(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TRIALRUN_JAIL", "off")  # $! inside the jail is a namespace pid
    pidfile = tmp_path / "child.pid"
    script = f"sleep 30 & echo $! > {pidfile}; echo started; wait"
    v = grade({"type": "command", "run": script, "timeout_s": 0.5}, make_trial(workspace=tmp_path))
    assert v.passed is False and v.details["timed_out"] is True
    assert "timed out" in v.details["reason"]
    child = int(pidfile.read_text())
    assert _gone(child)


def _gone(pid: int) -> bool:
    """True once `pid` no longer runs (a zombie awaiting its reaper counts as gone)."""
    for _ in range(200):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "State:\tZ" in status:
            return True
        time.sleep(0.05)
    return False


def test_missing_program_is_undetermined(tmp_path: Path) -> None:
    v = grade(
        {"type": "command", "run": ["definitely-not-a-program-xyz"]}, make_trial(workspace=tmp_path)
    )
    assert v.passed is None and "not found" in v.details["error"]
    shell = grade(
        {"type": "command", "run": "definitely-not-a-program-xyz"}, make_trial(workspace=tmp_path)
    )
    assert shell.passed is False and shell.details["exit_code"] == 127


def test_no_workspace_is_undetermined() -> None:
    v = grade({"type": "command", "run": "true"}, make_trial(workspace=None))
    assert v.passed is None


def test_commands_run_concurrently(tmp_path: Path) -> None:
    """Two graders in one event loop overlap: each waits for the other's marker file."""
    trial = make_trial(workspace=tmp_path)
    script = (
        "import pathlib, sys, time\n"
        "me, other = sys.argv[1], sys.argv[2]\n"
        "pathlib.Path(me).touch()\n"
        "for _ in range(200):\n"
        "    if pathlib.Path(other).exists(): sys.exit(0)\n"
        "    time.sleep(0.02)\n"
        "sys.exit(1)\n"
    )
    configs = [
        parse_grader(
            {"type": "command", "run": [sys.executable, "-c", script, a, b], "timeout_s": 20}
        )
        for a, b in (("one", "two"), ("two", "one"))
    ]

    async def both():
        return await asyncio.gather(*(run_grader(c, trial) for c in configs))

    assert [v.passed for v in asyncio.run(both())] == [True, True]


@pytest.mark.parametrize(
    "config",
    [
        {"type": "command", "run": ""},
        {"type": "command", "run": []},
        {"type": "command", "run": "true", "timeout_s": 0},
    ],
)
def test_bad_config(config: dict) -> None:
    with pytest.raises(ValidationError):
        parse_grader(config)
