"""Issue 32, item 9: the run's own processes.

- A worker process that dies while starting crashed `--processes 2` with a traceback: it
  is now started again (twice), and a slot that never starts is one warning line, its
  trials run by the other workers or, with none left, infra errors — never a traceback.
- Killing the driver (SIGKILL) left an unjailed `--agent-cmd` running: the command and
  everything in its process group now die with the process that started it.
Fault injection: a `sitecustomize` on PYTHONPATH that makes a worker exit as it starts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from trialrun.rundir import RunDir
from trialrun.sandbox import jail_available

pytestmark = pytest.mark.timeout(300)

TASK = """\
task_id: t{i}
suite: golden
description: the agent answers done
inputs: {{prompt: go}}
environment: {{fixture: note, sandbox: {sandbox}, budgets: {{timeout_s: 120}}}}
graders: [{{type: contains, value: done}}]
tracked_metrics: [pass^k]
trials: {{k: {k}}}
"""

# Exits a `_proc_worker` process as it starts, the first DIE_FIRST times (all: -1),
# counted by files in DIE_DIR (one created per start, O_EXCL: no two alike).
SITECUSTOMIZE = """\
import os, sys
if "trialrun.runner._proc_worker" in " ".join(sys.orig_argv):
    folder, first = os.environ["DIE_DIR"], int(os.environ["DIE_FIRST"])
    n = 0
    while True:
        try:
            os.close(os.open(os.path.join(folder, str(n)), os.O_CREAT | os.O_EXCL))
            break
        except FileExistsError:
            n += 1
    if first < 0 or n < first:
        os._exit(3)
"""


def _suite(tmp_path: Path, k: int, sandbox: str = "workspace", n_tasks: int = 1) -> Path:
    suite = tmp_path / "suite"
    (suite / "fixtures" / "note").mkdir(parents=True)
    (suite / "fixtures" / "note" / "note.txt").write_text("done")
    for i in range(n_tasks):
        (suite / f"task{i}.yaml").write_text(TASK.format(i=i, k=k, sandbox=sandbox))
    return suite


def _dying_env(tmp_path: Path, first: int) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (tmp_path / "starts").mkdir()
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "DIE_DIR": str(tmp_path / "starts"),
            "DIE_FIRST": str(first)}  # fmt: skip


def _run(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    suite = _suite(tmp_path, k=4, n_tasks=2)
    return subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(suite), "--agent-cmd", "cat note.txt",
         "--processes", "2", "-j", "2", "--out", "o"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip


def _results(tmp_path: Path) -> list:
    (folder,) = (tmp_path / "o").iterdir()
    return list(RunDir.open(folder).iter_results())


def test_a_worker_dying_at_start_is_started_again(tmp_path: Path) -> None:
    done = _run(tmp_path, _dying_env(tmp_path, first=2))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = _results(tmp_path)
    assert len(lines) == 8 and all(line.passed for line in lines)
    assert len(list((tmp_path / "starts").iterdir())) >= 4  # 2 died, 2 started for real


def test_a_worker_that_never_starts_is_one_line_and_infra_errors(tmp_path: Path) -> None:
    done = _run(tmp_path, _dying_env(tmp_path, first=-1))
    assert "Traceback" not in done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if "while starting" in line]
    assert said and all("exit 3" in line for line in said), done.stderr
    assert len(said) == 2  # one line per worker slot given up
    lines = _results(tmp_path)
    assert len(lines) == 8
    assert all(line.passed is None and line.error["kind"] == "infra" for line in lines)
    assert all("while starting" in line.error["message"] for line in lines), lines[0].error


def _survivors(arg: str) -> list[psutil.Process]:
    return [
        p
        for p in psutil.process_iter(["cmdline", "status"])
        if p.info["cmdline"] == ["sleep", arg] and p.info["status"] != psutil.STATUS_ZOMBIE
    ]


@pytest.mark.parametrize("sandbox", ["workspace", "bwrap"])
@pytest.mark.parametrize("processes", ["1", "2"])
def test_killing_the_driver_kills_the_agent_command(
    tmp_path: Path, sandbox: str, processes: str
) -> None:
    if sandbox == "bwrap" and not jail_available():
        pytest.skip("bwrap is not installed or does not work here")
    arg = f"1003.{os.getpid()}{processes}{len(sandbox)}"
    suite = _suite(tmp_path, k=1, sandbox=sandbox)
    agent = f"sleep {arg} & wait"
    driver = subprocess.Popen(
        [sys.executable, "-m", "trialrun", "run", str(suite), "--agent-cmd", agent,
         "--processes", processes, "--out", "o"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(1200):  # poll until the agent's child runs
            if _survivors(arg):
                break
            time.sleep(0.05)
        assert _survivors(arg), "the agent command never started"
    finally:
        driver.send_signal(signal.SIGKILL)  # no chance to clean up
        driver.wait()
    try:
        gone, alive = psutil.wait_procs(_survivors(arg), timeout=20)
        assert alive == []  # the agent's sleep died with the driver
    finally:
        for proc in _survivors(arg):
            proc.kill()
