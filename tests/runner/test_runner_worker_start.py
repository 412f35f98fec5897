"""A worker process's start (`processes = N`): nothing per task before its first trial.

The worker (`_proc_worker._serve`, here on a real socket pair in this process so a tool
pack registered by the test is seen) is sent each task with its first trial for it and
prepares it then, once: set up for a suite of five tasks and given trials of two, it
prepares two. The driver sends a task to a worker once; a fresh worker gets it again. A
tool pack the worker does not know is still one line at its start, a task that cannot
be prepared on its first trial one line too; importing the worker module leaves the
driver's planning, resume and task loading unloaded. The workers are started before the
run loads its tasks; those its plan does not need (one trial, fewer trials than workers,
a bad task file) are gone when it returns.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from trialrun import RunHooks, UserError
from trialrun import run as run_eval
from trialrun.runner._frames import WorkerSetup, read_frame
from trialrun.runner._plan import TrialSpec
from trialrun.runner._proc_worker import _serve
from trialrun.runner._processes import _Slot
from trialrun.runner._remote import WorkerJob
from trialrun.tasks import Task, load_tasks
from trialrun.tools import TOOL_PACKS, Tool

pytestmark = pytest.mark.timeout(300)

PACK = "counted-for-worker-start"
TASK = """\
task_id: {task_id}
suite: golden
description: the agent answers done
inputs: {{prompt: go}}
environment: {{fixture: note, tools: [{pack}]}}
graders: [{{type: contains, value: done}}]
tracked_metrics: [pass^k]
"""
SCRIPT = "default:\n  - content: done\n"


class _Prepares:
    """The tool pack the tasks use: a factory that counts its calls (one a preparation);
    given `fails`, each call raises it (fault injection: a UserError as a pack's factory
    may raise, or a bug)."""

    def __init__(self) -> None:
        self.calls = 0
        self.fails: Exception | None = None

    def __call__(self, options: dict[str, Any]) -> list[Tool]:
        self.calls += 1
        if self.fails is not None:
            raise self.fails
        return []


@pytest.fixture
def prepares(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Prepares]:
    counter = _Prepares()
    TOOL_PACKS.names()  # built-ins and entry points in first, then ours beside them
    monkeypatch.setitem(TOOL_PACKS._items, PACK, counter)
    yield counter


def _suite(tmp_path: Path, n_tasks: int, pack: str = PACK) -> list[Task]:
    suite = tmp_path / "suite"
    (suite / "fixtures" / "note").mkdir(parents=True)
    (suite / "fixtures" / "note" / "note.txt").write_text("done")
    for i in range(n_tasks):
        (suite / f"t{i}.yaml").write_text(TASK.format(task_id=f"t{i}", pack=pack))
    return list(load_tasks([suite]).tasks)


def _model(tmp_path: Path) -> str:
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT)
    return f"scripted:{script}"


def _setup(tmp_path: Path, tasks: list[Task], model: str, packs: list[str]) -> WorkerSetup:
    (tmp_path / "inflight").mkdir(exist_ok=True)
    return WorkerSetup(
        job=WorkerJob(model_specs={model: model}),
        task_slugs={t.task_id: t.task_id for t in tasks},
        model_slugs={model: "scripted"},
        run_path=tmp_path,
        workspace_parent=tmp_path / "inflight",
        in_flight=8,
        sys_path=list(sys.path),
        tool_packs=packs,
    )


async def _talk(setup: WorkerSetup, batches: list[list[TrialSpec]]) -> list[Any]:
    """Set a worker up, send it `batches` as the driver does, and collect what it says
    until every trial is back (or it reports an error or the socket closes)."""
    ours, theirs = socket.socketpair()
    serving = asyncio.ensure_future(_serve(theirs))
    reader, writer = await asyncio.open_connection(sock=ours)
    slot = _Slot(number=0, writer=writer)
    said: list[Any] = []
    try:
        slot.send(("setup", setup))
        said.append(await read_frame(reader))
        if said[-1] != ("ready",):
            return said
        waiting = sum(len(batch) for batch in batches)
        for batch in batches:
            slot.send(slot.run_message(batch))
        while waiting:
            message = await read_frame(reader)
            said.append(message)
            if message is None or message[0] != "done":
                break
            waiting -= len(message[1])
        slot.send(("stop",))
    finally:
        writer.close()
        await serving
    return said


def test_a_worker_prepares_only_the_tasks_its_trials_use(
    tmp_path: Path, prepares: _Prepares
) -> None:
    tasks = _suite(tmp_path, 5)
    model = _model(tmp_path)
    batches = [
        [TrialSpec(tasks[1], model, trial) for trial in range(3)],
        [TrialSpec(tasks[3], model, 0), TrialSpec(tasks[1], model, 3)],
    ]
    said = asyncio.run(_talk(_setup(tmp_path, tasks, model, [PACK]), batches))
    lines = [line for message in said[1:] for line, _transcript in message[1]]
    assert said[0] == ("ready",)
    assert sorted(line.key for line in lines) == sorted(
        spec.key for batch in batches for spec in batch
    )
    assert all(line.passed for line in lines)
    assert prepares.calls == 2  # t1 and t3, each once; not the suite's five


def test_a_task_that_cannot_be_prepared_on_its_first_trial_is_one_line(
    tmp_path: Path, prepares: _Prepares
) -> None:
    tasks = _suite(tmp_path, 2)
    model = _model(tmp_path)
    prepares.fails = UserError("tool pack counted-for-worker-start: refused here")
    said = asyncio.run(_talk(_setup(tmp_path, tasks, model, [PACK]),
                             [[TrialSpec(tasks[0], model, 0)]]))  # fmt: skip
    assert said == [("ready",), ("error", "tool pack counted-for-worker-start: refused here")]


def test_a_bug_preparing_a_task_is_a_crash_the_driver_fails_the_run_on(
    tmp_path: Path, prepares: _Prepares
) -> None:
    tasks = _suite(tmp_path, 1)
    model = _model(tmp_path)
    prepares.fails = ZeroDivisionError("a bug in the pack")
    said = asyncio.run(_talk(_setup(tmp_path, tasks, model, [PACK]),
                             [[TrialSpec(tasks[0], model, 0)]]))  # fmt: skip
    assert said[0] == ("ready",) and said[1][0] == "crash" and len(said) == 2
    assert "ZeroDivisionError: a bug in the pack" in said[1][1]


def test_the_driver_sends_a_task_to_a_worker_once_and_again_to_a_fresh_one(
    tmp_path: Path,
) -> None:
    tasks = _suite(tmp_path, 3, pack="vault")
    slot = _Slot(number=0)
    first = slot.run_message([TrialSpec(tasks[0], "m", 0), TrialSpec(tasks[0], "m", 1),
                              TrialSpec(tasks[1], "m", 0)])  # fmt: skip
    again = slot.run_message([TrialSpec(tasks[1], "m", 1), TrialSpec(tasks[2], "m", 0)])
    assert first == ("run", [("t0", "m", 0), ("t0", "m", 1), ("t1", "m", 0)],
                     [tasks[0], tasks[1]])  # fmt: skip
    assert again == ("run", [("t1", "m", 1), ("t2", "m", 0)], [tasks[2]])
    slot.sent.clear()  # what `_start` does for a fresh worker process
    assert slot.run_message([TrialSpec(tasks[0], "m", 2)])[2] == [tasks[0]]


def test_a_pack_the_worker_lacks_is_one_line_at_its_start(
    tmp_path: Path, prepares: _Prepares
) -> None:
    """Registered in the driver only (not an entry point): the worker does not have it,
    and says so before any trial runs, as when it prepared every task up front."""
    tasks = _suite(tmp_path, 2)
    with pytest.raises(UserError) as info:
        run_eval(tasks, [_model(tmp_path)], out=tmp_path / "o", processes=2, concurrency=2,
                 handle_sigint=False, fsync=False)  # fmt: skip
    assert str(info.value).startswith(f"unknown tool pack '{PACK}'")
    assert "\n" not in str(info.value)
    assert prepares.calls == 2  # the driver's own preparation; no trial ran anywhere


def test_importing_the_worker_leaves_the_drivers_planning_unloaded() -> None:
    probe = (
        "import sys, trialrun.runner._proc_worker\n"
        "print(' '.join(m for m in ('trialrun.runner._run', 'trialrun.runner._manifest', "
        "'trialrun.runner._inflight', 'trialrun.workflow') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.split() == []


def test_a_worker_loads_the_builtins_before_its_setup_but_no_entry_point() -> None:
    """What every first trial needs is loaded while an early worker waits for its setup;
    plugins' entry points are read only after the driver's sys.path is added."""
    probe = (
        "import sys, trialrun.runner._proc_worker as worker\n"
        "from trialrun.graders import GRADERS\n"
        "from trialrun.tools import TOOL_PACKS\n"
        "worker._warm()\n"
        "print(*[m in sys.modules for m in ('trialrun.graders.builtin', "
        "'trialrun.tools.builtin', 'trialrun.tasks')], GRADERS._loaded, TOOL_PACKS._loaded)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.split() == ["True", "True", "True", "False", "False"]


def _our_workers() -> list[psutil.Process]:
    return [
        child
        for child in psutil.Process().children(recursive=True)
        if "trialrun.runner._proc_worker" in " ".join(child.cmdline())
    ]


def test_the_workers_are_started_before_the_tasks_are_loaded(tmp_path: Path) -> None:
    seen: list[int] = []
    hooks = RunHooks(loaded=lambda tasks, k: seen.append(len(_our_workers())))
    _suite(tmp_path, 3, pack="vault")
    suite = tmp_path / "suite"
    done = run_eval(suite, [_model(tmp_path)], out=tmp_path / "o", k=2, processes=2,
                    concurrency=4, handle_sigint=False, fsync=False, hooks=hooks)  # fmt: skip
    assert seen == [2]  # both running when the loaded tasks were handed to the hooks
    assert done.summary.finished_trials == 6
    assert not _our_workers()


@pytest.mark.parametrize(("trials", "processes"), [(1, 2), (2, 4)])
def test_workers_the_plan_does_not_need_are_gone(
    tmp_path: Path, trials: int, processes: int
) -> None:
    """One trial runs in this process; two trials need two of the four workers."""
    tasks = _suite(tmp_path, trials, pack="vault")
    done = run_eval(tasks, [_model(tmp_path)], out=tmp_path / "o", k=1, processes=processes,
                    concurrency=4, handle_sigint=False, fsync=False)  # fmt: skip
    assert done.summary.finished_trials == trials
    assert not _our_workers()


def test_a_bad_task_file_leaves_no_early_worker(tmp_path: Path) -> None:
    _suite(tmp_path, 1, pack="vault")
    suite = tmp_path / "suite"
    (suite / "bad.yaml").write_text("task_id: bad\nsuite: golden\n")
    with pytest.raises((UserError, SystemExit)):
        run_eval(suite, [_model(tmp_path)], out=tmp_path / "o", processes=2, concurrency=4,
                 handle_sigint=False, fsync=False)  # fmt: skip
    assert not _our_workers()
