"""The local executor on several worker processes (`processes = N`).

The example suite gets the same per-task counts and keys as a one-process run, and every
transcript reads back; a worker killed mid-trial has its trial run once more (none lost,
none doubled), one that dies every time is an infra error; Ctrl-C keeps what finished
and a resume completes it; a killed driver leaves no worker behind; a user's agent module
found on the driver's sys.path is found by the workers; errors are one line, exit 2.
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
from run_folders import counts, keys

from cli_support import cli_process
from trialrun import RunHooks, UserError
from trialrun import run as run_eval
from trialrun.rundir import RunDir

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tasks"
GOOD = f"scripted:{ROOT / 'examples' / 'scripts' / 'good.yaml'}"
WORKER_MODULE = "trialrun.runner._proc_worker"

TASK = """\
task_id: {task_id}
suite: golden
description: the agent answers done
inputs: {{prompt: go}}
environment: {{fixture: note, budgets: {{timeout_s: 60}}}}
graders: [{{type: contains, value: done}}]
tracked_metrics: [pass^k]
trials: {{k: {k}}}
"""

SLOW_AGENT = """\
import time
from pathlib import Path


def agent(task, workspace, tools, model):
    time.sleep(0.2)
    return (Path(workspace) / "note.txt").read_text()
"""

WAIT_FOR_TWO = """\
import os
import time
from pathlib import Path

PIDS = Path({pids!r})


def agent(task, workspace, tools, model):
    PIDS.mkdir(exist_ok=True)
    (PIDS / str(os.getpid())).touch()
    deadline = time.monotonic() + 60
    while len(list(PIDS.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    return f"done by {{os.getpid()}}" if len(list(PIDS.iterdir())) >= 2 else "alone"
"""


def _suite(tmp_path: Path, k: int, n_tasks: int = 1) -> Path:
    suite = tmp_path / "suite"
    (suite / "fixtures" / "note").mkdir(parents=True)
    (suite / "fixtures" / "note" / "note.txt").write_text("done")
    for i in range(n_tasks):
        (suite / f"task{i}.yaml").write_text(TASK.format(task_id=f"t{i}", k=k))
    return suite


def _all_workers() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if WORKER_MODULE in cmdline:
            found.append(proc)
    return found


_OTHERS: set[psutil.Process] = set()  # workers of other runs on the machine, seen before


@pytest.fixture(autouse=True)
def _ignore_workers_already_running():
    """A worker another program runs on this machine (a bench, a second test session)
    is not this test's leak: only workers that appear during the test count."""
    _OTHERS.clear()
    _OTHERS.update(_all_workers())  # a Process compares by pid and start time
    yield


def _workers() -> list[psutil.Process]:
    return [proc for proc in _all_workers() if proc not in _OTHERS]


def test_the_example_suite_gets_the_one_process_verdicts(tmp_path):
    two = run_eval(EXAMPLES, [GOOD], out=tmp_path / "two", processes=2, concurrency=4,
                   handle_sigint=False, fsync=False)  # fmt: skip
    one = run_eval(EXAMPLES, [GOOD], out=tmp_path / "one", concurrency=4,
                   handle_sigint=False, fsync=False)  # fmt: skip
    assert two.summary.finished_trials == one.summary.finished_trials > 0
    assert counts(two.path) == counts(one.path)
    assert sorted(keys(two.path)) == sorted(keys(one.path))
    assert len(keys(two.path)) == len(set(keys(two.path)))
    rundir = RunDir.open(two.path)  # the driver wrote every transcript: each reads back
    for line in rundir.iter_results():
        transcript = rundir.transcript(line)
        assert (transcript.task_id, transcript.trial) == (line.task_id, line.trial)
    assert not _workers()  # every worker ended with the run


def test_trials_really_run_in_more_than_one_process(tmp_path):
    """Each trial waits (up to 60 s) until trials have started in two processes: with
    one process the first trials would wait out the minute and fail."""
    agent = tmp_path / "who.py"
    agent.write_text(WAIT_FOR_TWO.format(pids=str(tmp_path / "pids")))
    suite = _suite(tmp_path, k=8)
    done = run_eval(suite, out=tmp_path / "o", agent=f"{agent}:agent", processes=2,
                    concurrency=4, handle_sigint=False, fsync=False)  # fmt: skip
    lines = list(RunDir.open(done.path).iter_results())
    pids = {line.extra["final_text"].split()[-1] for line in lines}
    assert len(lines) == 8 and all(line.passed for line in lines)
    assert len(pids) == 2 and str(os.getpid()) not in pids


def test_an_agent_module_on_the_drivers_path_is_found_by_the_workers(tmp_path, monkeypatch):
    package = tmp_path / "mine"
    package.mkdir()
    (package / "my_agent.py").write_text(SLOW_AGENT.replace("0.2", "0"))
    monkeypatch.syspath_prepend(str(package))  # a library user's own sys.path, not PYTHONPATH
    suite = _suite(tmp_path, k=4)
    done = run_eval(suite, out=tmp_path / "o", agent="my_agent:agent", processes=2,
                    concurrency=2, handle_sigint=False, fsync=False)  # fmt: skip
    assert [line.passed for line in RunDir.open(done.path).iter_results()] == [True] * 4


def test_a_worker_killed_mid_trial_has_its_trial_run_once_more(tmp_path, crashing_agent):
    suite = _suite(tmp_path, k=4)
    agent, marks = crashing_agent(always=False)
    done = run_eval(suite, out=tmp_path / "o", agent=agent, processes=2, concurrency=2,
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = list(RunDir.open(done.path).iter_results())
    assert sorted(line.trial for line in lines) == [0, 1, 2, 3]  # none lost, none doubled
    assert all(line.passed is True and line.error is None for line in lines)
    assert len(list(marks.iterdir())) == 5  # 4 trials + the one run again


def test_a_trial_whose_worker_always_dies_is_an_infra_error(tmp_path, crashing_agent):
    suite = _suite(tmp_path, k=2)
    agent, marks = crashing_agent(always=True)
    done = run_eval(suite, out=tmp_path / "o", agent=agent, processes=2, concurrency=2,
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = list(RunDir.open(done.path).iter_results())
    assert sorted(line.trial for line in lines) == [0, 1]
    for line in lines:
        assert line.is_infra and line.passed is None and line.solve is None
        assert line.error["message"].startswith("worker process died (exit 1)")
        assert RunDir.open(done.path).transcript(line).error["kind"] == "infra"
    assert len(list(marks.iterdir())) == 4  # each trial: the first try and one more
    assert done.summary.tasks[0].infra_errors == 2
    assert not _workers()


def test_ctrl_c_keeps_what_finished_and_a_resume_completes_it(tmp_path):
    seen: list[object] = []

    def interrupt(line: object) -> None:
        seen.append(line)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    first = run_eval(EXAMPLES, [GOOD], out=tmp_path / "o", processes=2, concurrency=2,
                     hooks=RunHooks(trial=interrupt), fsync=False)  # fmt: skip
    assert first.interrupted
    total = first.summary.expected_trials
    assert 3 <= first.summary.finished_trials < total
    assert not _workers()
    assert not list((first.path / ".workspaces").glob("*/*"))  # cancelled trials cleaned up
    again = run_eval(resume=first.path, processes=2, concurrency=2, handle_sigint=False,
                     fsync=False)  # fmt: skip
    assert not again.interrupted
    assert again.trials_run == total - first.summary.finished_trials
    assert len(keys(again.path)) == len(set(keys(again.path))) == total
    one = run_eval(EXAMPLES, [GOOD], out=tmp_path / "one", handle_sigint=False, fsync=False)
    assert counts(again.path) == counts(one.path)


def test_a_killed_driver_leaves_no_worker_behind_and_a_resume_completes(tmp_path):
    suite = _suite(tmp_path, k=20)
    (tmp_path / "slow.py").write_text(SLOW_AGENT)
    driver = subprocess.Popen(
        [sys.executable, "-m", "trialrun", "run", str(suite), "--agent",
         f"{tmp_path / 'slow.py'}:agent", "--processes", "2", "-j", "4", "--out", "o"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        results = None
        while time.monotonic() < deadline:
            found = list((tmp_path / "o").glob("*/results.jsonl"))
            if found and found[0].read_text().count("\n") >= 2:
                results = found[0]
                break
            time.sleep(0.05)
        assert results is not None, "the run wrote no results"
        children = psutil.Process(driver.pid).children()
        assert len([c for c in children if WORKER_MODULE in c.cmdline()]) == 2
    finally:
        driver.kill()  # SIGKILL: the driver gets no chance to stop its workers
        driver.wait()
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive  # each worker dies with its driver
    again = cli_process("run", "--resume", str(results.parent), "--processes", "2", "-j", "4",
                 cwd=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr
    lines = list(RunDir.open(results.parent).iter_results())
    assert sorted(line.trial for line in lines) == list(range(20))  # none lost, none doubled
    assert all(line.passed for line in lines)


def test_the_cli_flag_end_to_end(tmp_path):
    done = cli_process("run", str(EXAMPLES), "-m", GOOD, "--processes", "2", "-j", "4",
                "--out", "o", "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # `--json`: stdout is the document, stderr stays empty
    [run_path] = list((tmp_path / "o").iterdir())
    one = run_eval(EXAMPLES, [GOOD], out=tmp_path / "one", handle_sigint=False, fsync=False)
    assert counts(run_path) == counts(one.path)


def test_processes_from_trialrun_toml(tmp_path):
    (tmp_path / "trialrun.toml").write_text('[run]\nprocesses = "auto"\n')
    done = cli_process("run", str(EXAMPLES), "-m", GOOD, "-j", "4", "--out", "o", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_worker_that_cannot_build_the_agent_is_one_user_error(tmp_path, monkeypatch):
    """The driver checks the agent first; a worker that still fails (here: the module
    vanished between the two) reports the same one-line error, and no worker is left."""
    module = tmp_path / "gone.py"
    module.write_text(SLOW_AGENT)
    import trialrun.runner._processes as processes

    real_start = processes._start

    async def start_after_removing(slot, setup):
        module.unlink(missing_ok=True)
        await real_start(slot, setup)

    monkeypatch.setattr(processes, "_start", start_after_removing)  # fault injection
    with pytest.raises(UserError) as info:
        run_eval(_suite(tmp_path, k=2), out=tmp_path / "o", agent=f"{module}:agent",
                 processes=2, concurrency=2, handle_sigint=False, fsync=False)  # fmt: skip
    assert str(info.value).count("\n") == 0 and "gone.py" in str(info.value)
    assert not _workers()


def test_a_worker_of_another_protocol_is_one_line(tmp_path, monkeypatch):
    import functools

    import trialrun.runner._run as run_module
    from trialrun.runner._remote import WorkerJob

    monkeypatch.setattr(run_module, "WorkerJob", functools.partial(WorkerJob, protocol=1))
    with pytest.raises(UserError) as info:
        run_eval(EXAMPLES, [GOOD], out=tmp_path / "o", processes=2, concurrency=2,
                 handle_sigint=False, fsync=False)  # fmt: skip
    assert "the driver's protocol is 1; install the same trialrun" in str(info.value)
    assert "\n" not in str(info.value)
    assert not _workers()
