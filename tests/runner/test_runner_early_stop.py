"""--early-stop: a task's remaining trials are skipped once one trial settles its verdict.

pass^k tasks (judged on solve^k) at n = k: the first unsolved trial settles it (the figure
is 0 whatever follows); pass@k: the first solved trial (the figure is 1). The summary counts settled
tasks apart and reports no estimate it did not measure.
"""

from __future__ import annotations

import json

from trialrun import run as run_eval
from trialrun.rundir import RunDir, SummaryRow
from trialrun.tasks import Task


def task(task_id: str, metric: str, k: int = 5) -> Task:
    return Task.model_validate(
        {
            "task_id": task_id,
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "p"},
            "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"],
            "trials": {"k": k, "metric": metric},
        }
    )


def script(tmp_path, replies: dict[str, str]) -> str:
    path = tmp_path / "s.json"
    tasks = {tid: [{"content": text}] for tid, text in replies.items()}
    path.write_text(json.dumps({"tasks": tasks, "default": [{"content": "hello"}]}))
    return f"scripted:{path}"


def rows(outcome) -> dict[str, SummaryRow]:
    return {r.task_id: r for r in outcome.summary.tasks}


def test_the_first_failure_settles_pass_k_and_the_first_success_settles_pass_at_k(tmp_path):
    tasks = [
        task("fails", "pass^k"),
        task("fails-too", "pass^k", k=3),
        task("solves-at", "pass@k"),
        task("always", "pass^k"),  # every trial solved: nothing settles early
        task("never-at", "pass@k"),  # no trial solved: pass@k is only known after k
    ]
    model = script(tmp_path, {"fails": "bye", "fails-too": "bye", "never-at": "bye"})
    outcome = run_eval(tasks, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                       handle_sigint=False)
    lines = RunDir.open(outcome.path).results()
    count = {t.task_id: sum(1 for x in lines if x.task_id == t.task_id) for t in tasks}
    assert count == {"fails": 1, "fails-too": 1, "solves-at": 1, "always": 5, "never-at": 5}
    settled = {x.task_id: x.extra["settled_after"] for x in lines if "settled_after" in x.extra}
    assert settled == {"fails": 1, "fails-too": 1, "solves-at": 1}
    r = rows(outcome)
    assert (r["fails"].settled, r["fails"].settled_after) == ("not met", 1)
    assert r["solves-at"].settled == "met"
    for tid in settled:  # never an estimate that was not measured
        assert r[tid].pass_k is None and r[tid].solve_k is None
        assert r[tid].pass_at_k is None
    assert r["always"].solve_k == 1.0 and r["always"].settled is None
    assert r["never-at"].pass_at_k == 0.0 and r["never-at"].settled is None
    agg = outcome.summary.aggregate[model]
    assert (agg["settled"], agg["insufficient"], agg["trials"]) == (3, 0, 13)


def test_without_the_flag_every_trial_runs(tmp_path):
    model = script(tmp_path, {"fails": "bye"})
    outcome = run_eval([task("fails", "pass^k")], [model], out=tmp_path / "o",
                       concurrency=1, handle_sigint=False)
    assert outcome.summary.finished_trials == 5
    assert rows(outcome)["fails"].solve_k == 0.0
    assert rows(outcome)["fails"].settled_after is None
    assert "settled" not in outcome.summary.aggregate[model]


def write_suite(tmp_path, tasks: list[tuple[str, int]]):
    suite = tmp_path / "suite"
    suite.mkdir()
    for task_id, k in tasks:
        (suite / f"{task_id}.json").write_text(json.dumps({
            "task_id": task_id, "suite": "golden", "description": "d",
            "inputs": {"prompt": "p"}, "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"], "trials": {"k": k},
        }))
    return suite


def test_a_resume_keeps_a_settled_task_settled(tmp_path):
    model = script(tmp_path, {"fails": "bye"})
    suite = write_suite(tmp_path, [("fails", 5), ("ok", 2)])
    first = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                     handle_sigint=False)
    assert first.summary.finished_trials == 3
    again = run_eval(resume=first.path, concurrency=1, handle_sigint=False)
    assert again.trials_run == 0
    assert again.summary.finished_trials == 3
    assert rows(again)["fails"].settled_after == 1


def test_the_cli_flag_and_the_table_say_settled(tmp_path):
    import os
    import subprocess
    import sys

    suite = write_suite(tmp_path, [("fails", 5)])
    model = script(tmp_path, {"fails": "bye"})
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(suite), "-m", model, "--early-stop",
         "--out", str(tmp_path / "o"), "-j", "1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "settled after 1 of 5 (pass^k not met; 4 not run)" in proc.stdout
    assert "settled early 1" in proc.stdout
    assert "solve^k — over 0 of 1 tasks (1 settled early)" in proc.stdout
    assert "pass^k (completed) — over 0 of 1 tasks (1 settled early)" in proc.stdout


def test_a_settled_task_is_a_verdict_for_junit_and_the_gates_not_missing_data(tmp_path):
    from trialrun.reports import task_outcome
    from trialrun.tracking import load_run

    model = script(tmp_path, {"fails": "bye"})
    outcome = run_eval([task("fails", "pass^k"), task("solves-at", "pass@k")], [model],
                       out=tmp_path / "o", concurrency=1, early_stop=True, handle_sigint=False)
    records = {r.task_id: r for r in load_run(outcome.path).records}
    assert records["fails"].settled_after == 1 and not records["fails"].insufficient
    status, message = task_outcome(records["fails"])
    assert status == "failure" and "solved 0/1" in message
    assert task_outcome(records["solves-at"]) == ("passed", "")


def test_with_trials_in_flight_each_tasks_first_trial_runs_first(tmp_path):
    """Two in flight, three failing pass^k tasks at k = 3. Task by task, a task's second
    trial starts beside its first and runs before the first settles it: a0 a1, b0 b1,
    c0 c1 (6 trials). Every task's trial 0 first: a0 b0 start, c0 follows the first to
    end, and when the next slot frees two of the three have settled their tasks: only the
    third task's trial 1 can still start (whichever trial 0 is slowest: 4 trials at most,
    never two trials 1)."""
    tasks = [task("a", "pass^k", k=3), task("b", "pass^k", k=3), task("c", "pass^k", k=3)]
    model = script(tmp_path, {"a": "bye", "b": "bye", "c": "bye"})
    outcome = run_eval(tasks, [model], out=tmp_path / "o", concurrency=2, early_stop=True,
                       handle_sigint=False)
    ran = sorted((x.task_id, x.trial) for x in RunDir.open(outcome.path).results())
    first, later = [r for r in ran if r[1] == 0], [r for r in ran if r[1] > 0]
    assert first == [("a", 0), ("b", 0), ("c", 0)]
    assert len(later) <= 1 and all(trial == 1 for _task, trial in later), ran


def test_early_stop_on_worker_processes(tmp_path):
    """With two worker processes the driver settles tasks as their lines come back and
    hands out no trial of a settled task: the verdicts are a one-process run's, and a
    failing task runs its first trial, plus at most the one handed out while it ran."""
    failing = [task(f"f{i}", "pass^k") for i in range(4)]
    tasks = [*failing, task("always", "pass^k")]
    model = script(tmp_path, {t.task_id: "bye" for t in failing})
    two = run_eval(tasks, [model], out=tmp_path / "two", concurrency=2, processes=2,
                   early_stop=True, handle_sigint=False)  # fmt: skip
    one = run_eval(tasks, [model], out=tmp_path / "one", concurrency=1, early_stop=True,
                   handle_sigint=False)  # fmt: skip
    lines = RunDir.open(two.path).results()
    count = {t.task_id: sum(1 for x in lines if x.task_id == t.task_id) for t in tasks}
    assert count["always"] == 5
    assert all(1 <= count[t.task_id] <= 2 for t in failing), count
    r2, r1 = rows(two), rows(one)
    for t in failing:
        assert r2[t.task_id].settled == r1[t.task_id].settled == "not met"
    assert r2["always"].solve_k == r1["always"].solve_k == 1.0
