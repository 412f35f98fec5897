"""The Ray executor on a real local Ray cluster (started once for the module).

The example suite with the scripted model gets the same per-task counts as the local
executor; a run interrupted by Ctrl-C keeps what finished and a resume completes it; a
worker killed mid-trial has its trial re-run once (none lost, none doubled), and a trial
whose worker dies every time is an infra error; a trial ending in an infra error is run
again on its worker ([retries] infra_trials); the CLI flag works end to end against
the cluster's address. Errors a user can cause are one line, exit 2.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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

TASK = """\
task_id: {task_id}
suite: golden
description: the agent answers done
inputs: {{prompt: go}}
environment: {{fixture: {fixture}, budgets: {{timeout_s: 60}}}}
graders: [{{type: contains, value: done}}]
tracked_metrics: [pass^k]
trials: {{k: {k}}}
"""

@pytest.fixture(scope="module")
def cluster() -> str:
    """A local cluster started the way `--executor ray` without an address starts one."""
    ray = pytest.importorskip("ray")
    from trialrun.runner._ray import connect_ray

    connect_ray(None)
    try:
        assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def test_the_example_suite_gets_the_local_executors_verdicts(cluster, tmp_path):
    on_ray = run_eval(EXAMPLES, [GOOD], out=tmp_path / "ray", executor="ray",
                      handle_sigint=False, fsync=False)  # fmt: skip
    here = run_eval(EXAMPLES, [GOOD], out=tmp_path / "local", handle_sigint=False, fsync=False)
    assert on_ray.summary.finished_trials == here.summary.finished_trials > 0
    assert counts(on_ray.path) == counts(here.path)
    assert sorted(keys(on_ray.path)) == sorted(keys(here.path))
    # the driver wrote every transcript: each line's transcript reads back
    rundir = RunDir.open(on_ray.path)
    for line in rundir.iter_results():
        assert rundir.transcript(line).task_id == line.task_id


def test_ctrl_c_keeps_what_finished_and_a_resume_completes_it(cluster, tmp_path):
    seen: list[object] = []

    def interrupt(line: object) -> None:
        seen.append(line)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    first = run_eval(EXAMPLES, [GOOD], out=tmp_path / "o", executor="ray", concurrency=2,
                     hooks=RunHooks(trial=interrupt), fsync=False)  # fmt: skip
    assert first.interrupted
    total = first.summary.expected_trials
    assert 3 <= first.summary.finished_trials < total
    again = run_eval(resume=first.path, executor="ray", handle_sigint=False, fsync=False)
    assert not again.interrupted
    assert again.trials_run == total - first.summary.finished_trials
    assert len(keys(again.path)) == len(set(keys(again.path))) == total
    here = run_eval(EXAMPLES, [GOOD], out=tmp_path / "local", handle_sigint=False, fsync=False)
    assert counts(again.path) == counts(here.path)


@pytest.fixture
def suite_of(tmp_path, crashing_agent):
    """`suite_of(k, always)` -> (a one-task suite, the crashing agent, its marks)."""

    def make(k: int, always: bool) -> tuple[Path, str, Path]:
        suite = tmp_path / "suite"
        (suite / "fixtures" / "note").mkdir(parents=True)
        (suite / "fixtures" / "note" / "note.txt").write_text("done")
        (suite / "task.yaml").write_text(TASK.format(task_id="crashy", fixture="note", k=k))
        agent, marks = crashing_agent(always)
        return suite, agent, marks

    return make


def test_a_worker_killed_mid_trial_has_its_trial_rerun_once(cluster, tmp_path, suite_of):
    suite, agent, marks = suite_of(k=2, always=False)
    done = run_eval(suite, out=tmp_path / "o", agent=agent, executor="ray",
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = list(RunDir.open(done.path).iter_results())
    assert sorted(line.trial for line in lines) == [0, 1]  # none lost, none doubled
    assert all(line.passed is True and line.error is None for line in lines)
    assert len(list(marks.iterdir())) == 3  # 2 trials + the one re-run


def test_a_trial_whose_worker_always_dies_is_an_infra_error(cluster, tmp_path, suite_of):
    suite, agent, marks = suite_of(k=1, always=True)
    done = run_eval(suite, out=tmp_path / "o", agent=agent, executor="ray",
                    handle_sigint=False, fsync=False)  # fmt: skip
    [line] = list(RunDir.open(done.path).iter_results())
    assert line.is_infra and line.passed is None and line.solve is None
    assert line.error["message"].startswith("ray: ")
    assert len(list(marks.iterdir())) == 2  # the first try and one re-run, no more
    assert RunDir.open(done.path).transcript(line).error["kind"] == "infra"
    assert done.summary.tasks[0].infra_errors == 1


def test_a_trial_ending_in_an_infra_error_is_run_again_on_its_worker(
    cluster, tmp_path, flaky_agent
):
    """[retries] infra_trials (default 2) re-runs it inside the worker's `run_trial`."""
    suite = tmp_path / "suite"
    (suite / "fixtures" / "note").mkdir(parents=True)
    (suite / "fixtures" / "note" / "note.txt").write_text("done")
    (suite / "task.yaml").write_text(TASK.format(task_id="flaky", fixture="note", k=2))
    agent, marks = flaky_agent(1)
    done = run_eval(suite, out=tmp_path / "o", agent=agent, executor="ray",
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = sorted(RunDir.open(done.path).iter_results(), key=lambda line: line.trial)
    assert [line.trial for line in lines] == [0, 1]
    assert all(line.passed is True and line.error is None for line in lines)
    [retried] = [line for line in lines if "attempts" in line.extra]
    assert retried.extra["attempts"] == 2
    assert retried.extra["retried_errors"] == ["provider unreachable (injected failure 0)"]
    assert done.summary.tasks[0].infra_errors == 0
    assert len(list(marks.glob("failure-*"))) == 1


def test_the_cli_flag_end_to_end(cluster, tmp_path):
    done = cli_process("run", str(EXAMPLES), "-m", GOOD, "--executor", "ray",
                       "--ray-address", cluster, "--out", "o", "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # `--json`: stdout is the document, stderr stays empty
    [run_path] = list((tmp_path / "o").iterdir())
    here = run_eval(EXAMPLES, [GOOD], out=tmp_path / "local", handle_sigint=False, fsync=False)
    assert counts(run_path) == counts(here.path)


# the agent marks that its trial runs, then holds it (bounded) until the test releases it
HOLDING_AGENT = """\
import time
from pathlib import Path

MARKS = Path({marks!r})


def agent(task, workspace, tools, model):
    (MARKS / "running").write_text("")
    end = time.monotonic() + 120
    while not (MARKS / "release").exists() and time.monotonic() < end:
        time.sleep(0.1)
    return "done"
"""


@pytest.mark.slow  # a cluster of its own: ~20 s
def test_a_local_cluster_started_by_trialrun_listens_on_loopback_only(tmp_path, ray_listeners):
    """`--executor ray` without `--ray-address`: the cluster the run starts (GCS, raylet,
    object manager, agents, workers, the driver) listens on 127.0.0.1 and nowhere else."""
    pytest.importorskip("ray")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "task.yaml").write_text(TASK.format(task_id="held", fixture="null", k=1))
    marks = tmp_path / "marks"
    marks.mkdir()
    agent = tmp_path / "holding.py"
    agent.write_text(HOLDING_AGENT.format(marks=str(marks)))
    # a Ray folder of its own (short: unix socket paths), in which a `ray start` of a
    # cluster long gone left its address: `ray.init()` would try to join it, the run
    # starts a cluster of its own
    ray_tmp = Path(tempfile.mkdtemp(dir="/tmp", prefix="tr"))
    (ray_tmp / "ray").mkdir()
    (ray_tmp / "ray" / "ray_current_cluster").write_text("127.0.0.1:1")
    env = {**os.environ, "RAY_TMPDIR": str(ray_tmp), "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    run = subprocess.Popen([sys.executable, "-m", "trialrun", "run", str(suite), "--agent",
                            f"{agent}:agent", "--executor", "ray", "--out", "o", "--json"],
                           cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while not (marks / "running").exists() and run.poll() is None:
            assert time.monotonic() < deadline, "the trial never started"
            time.sleep(0.2)
        assert run.poll() is None, run.communicate()[1][-2000:]
        listening = ray_listeners([run.pid])  # the whole cluster is up: a trial is running
        (marks / "release").write_text("")
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert run.returncode == 0, err
    [line] = list(RunDir.open(tmp_path / json.loads(out)["run_dir"]).iter_results())
    assert line.passed is True
    names = {listener.name for listener in listening}
    # not vacuous: Ray's daemons and the worker running the trial were seen listening
    assert {"gcs_server", "raylet"} <= names and any(n.startswith("ray::") for n in names), names
    assert any(listener.pid == run.pid for listener in listening)  # the driver's own server
    elsewhere = [listener for listener in listening if not listener.loopback]
    assert elsewhere == [], elsewhere


def test_without_ray_installed_the_flag_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if not installed
    with pytest.raises(UserError) as info:
        run_eval(EXAMPLES, [GOOD], out=tmp_path / "o", executor="ray", handle_sigint=False)
    assert str(info.value) == ("--executor ray: ray is not installed; pip install 'trialrun[ray]'")
    assert not (tmp_path / "o").exists()


def test_the_fixture_travels_with_the_task(tmp_path, suite_of):
    """A worker that cannot see the driver's files still builds the workspace: the packed
    fixture is all it gets (run here in-process, after the suite folder is gone)."""
    import shutil

    from trialrun.runner import TrialSpec
    from trialrun.runner._ray import pack_fixtures, worker_trial
    from trialrun.runner._remote import WorkerJob
    from trialrun.tasks import load_tasks

    suite, agent, marks = suite_of(k=1, always=False)
    Path(f"{marks}.crashed").write_text("")  # a crash already happened: it answers at once
    [task] = load_tasks([suite]).tasks
    packed = pack_fixtures(task)
    shutil.rmtree(suite)
    job = WorkerJob(model_specs={f"agent:{agent}": f"agent:{agent}"}, agent=agent)
    spec = TrialSpec(task, f"agent:{agent}", 0)
    line, transcript = worker_trial(job, spec, "crashy", "agent", "digest", packed)
    assert line.passed is True and line.error is None, line.error
    assert transcript is not None and json.loads(transcript)["task_id"] == "crashy"
    assert task.fixture_path is not None and task.fixture_path.is_dir()
    assert not str(task.fixture_path).startswith(str(suite))


def test_a_worker_makes_each_model_once(tmp_path, monkeypatch, suite_of):
    """Models are made once per worker process (a `local` model loads once per worker)."""
    import trialrun.models
    from trialrun.runner import TrialSpec, _ray
    from trialrun.tasks import load_tasks

    suite, _agent, _marks = suite_of(k=2, always=False)
    [task] = load_tasks([suite]).tasks
    packed = _ray.pack_fixtures(task)
    from trialrun.runner import _remote
    from trialrun.runner._remote import WorkerJob

    job = WorkerJob(model_specs={GOOD: GOOD})
    for key in [key for key in _ray._WORKER if key.startswith("kit:")]:
        monkeypatch.delitem(_ray._WORKER, key)  # a fresh worker
    made: list[str] = []
    real = trialrun.models.create_model

    def counting(spec, *args, **kwargs):
        made.append(spec)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(_remote, "create_model", counting)  # a spy, nothing faked
    lines = [
        _ray.worker_trial(job, TrialSpec(task, GOOD, trial), "c", "m", "d", packed)[0]
        for trial in (0, 1)
    ]
    assert made == [GOOD]
    assert [line.trial for line in lines] == [0, 1]
    assert all(line.error is None or not line.is_infra for line in lines)


def test_early_stop_settles_on_ray_too(cluster, tmp_path):
    suite = tmp_path / "suite"
    (suite / "fixtures" / "note").mkdir(parents=True)
    (suite / "fixtures" / "note" / "note.txt").write_text("done")
    (suite / "task.yaml").write_text(TASK.format(task_id="fails", fixture="note", k=5))
    agent = tmp_path / "wrong.py"
    agent.write_text("def agent(task, workspace, tools, model):\n    return 'nope'\n")
    done = run_eval(suite, out=tmp_path / "o", agent=f"{agent}:agent", executor="ray",
                    concurrency=1, early_stop=True, handle_sigint=False, fsync=False)  # fmt: skip
    [line] = list(RunDir.open(done.path).iter_results())
    assert line.solve is False and line.extra["settled_after"] == 1
    assert done.summary.tasks[0].settled_after == 1


def test_a_worker_of_another_trialrun_is_one_line(cluster, tmp_path, monkeypatch):
    """A driver whose worker protocol differs from the workers' (another trialrun on a
    node) stops with one line naming the fix, not an infra error per trial."""
    import functools

    import trialrun.runner._run as run_module
    from trialrun.runner._remote import WorkerJob

    monkeypatch.setattr(run_module, "WorkerJob", functools.partial(WorkerJob, protocol=1))
    with pytest.raises(UserError) as info:
        run_eval(EXAMPLES, [GOOD], out=tmp_path / "o", executor="ray", handle_sigint=False,
                 fsync=False)  # fmt: skip
    message = str(info.value)
    assert message.startswith("--executor ray: a worker runs trialrun ")
    assert "the driver's protocol is 1; install the same trialrun" in message
    assert "\n" not in message


def test_what_an_older_worker_hands_back_is_refused_in_one_line():
    from trialrun.runner._remote import check_returned

    with pytest.raises(UserError) as info:
        check_returned(object(), {"messages": []})  # an older worker's shapes
    assert "install the same trialrun on the driver and on every worker node" in str(info.value)
