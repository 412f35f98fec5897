"""--early-stop against a blessed baseline: a task in the model's baseline stops only once
compare's regression answer can no longer change, whatever its remaining trials do.

The scripted model answers "hello" (solved) or "bye" (unsolved, but the agent finished:
passed). A baseline is blessed from a first run of the same model (the same script file,
rewritten in between), so the second run finds it under the same name.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from trialrun import RunHooks
from trialrun import run as run_eval
from trialrun.rundir import RunDir
from trialrun.tracking import bless, compare_with_baselines


def write_suite(tmp_path, tasks: list[tuple[str, str, str]], k: int = 5):
    """(task id, suite, metric) each; graded on the reply containing "hello"."""
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)
    for task_id, name, metric in tasks:
        (suite / f"{task_id}.json").write_text(json.dumps({
            "task_id": task_id, "suite": name, "description": "d",
            "inputs": {"prompt": "p"}, "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"], "trials": {"k": k, "metric": metric},
        }))  # fmt: skip
    return suite


def script(tmp_path, replies: dict[str, object]) -> str:
    """The scripted model (one file: rewriting it keeps the model's name and baseline)."""
    path = tmp_path / "s.json"
    turns = {tid: [r if isinstance(r, dict) else {"content": r}] for tid, r in replies.items()}
    path.write_text(json.dumps({"tasks": turns, "default": [{"content": "hello"}]}))
    return f"scripted:{path}"


def blessed(tmp_path, suite, replies: dict[str, object]):
    """A baseline of the scripted model from a full run of `suite` with these replies."""
    model = script(tmp_path, replies)
    first = run_eval(suite, [model], out=tmp_path / "base", concurrency=1, handle_sigint=False)
    bless(first.path, tmp_path / "baselines")
    return tmp_path / "baselines"


def lines_of(path) -> dict[str, list]:
    out: dict[str, list] = {}
    for line in RunDir.open(path).iter_results():
        out.setdefault(line.task_id, []).append(line)
    return out


def settled_after(lines) -> list[int]:
    return [x.extra["settled_after"] for x in lines if "settled_after" in x.extra]


def labels(run_path, baselines) -> dict[str, str]:
    (match,) = compare_with_baselines(run_path, baselines)
    return {t.task_id: t.label for t in match.comparison.tasks}


def test_a_baseline_keeps_a_settled_pass_k_task_running_until_the_test_cannot_change(tmp_path):
    suite = write_suite(tmp_path, [("fails", "golden", "pass^k")])
    baselines = blessed(tmp_path, suite, {})  # solved 5/5, passed 5/5
    write_suite(tmp_path, [("new", "golden", "pass^k")])  # no baseline entry: the plain rule
    model = script(tmp_path, {"fails": "bye", "new": "bye"})
    outcome = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                       baselines=baselines, handle_sigint=False)  # fmt: skip
    lines = lines_of(outcome.path)
    # By hand, "fails" (k = 5, every trial unsolved but passed; baseline solved 5/5):
    # pass^k is 0 after trial 1, but compare's answer is open while some completion is a
    # regression and another is not. The solve test is Fisher on (5/5 → c/n), p = P(X ≤ c):
    #   after 1 (0/1, 4 left): all solved → 4/5, p = C(9,4)·C(1,1)/C(10,5) = 126/252: noise;
    #                          all unsolved → 0/5, p = 1/252: regression.            open
    #   after 2 (0/2, 3 left): all solved → 3/5, p = C(8,3)·C(2,2)/252 = 56/252.      open
    #   after 3 (0/3, 2 left): both solved → 2/5, p = C(7,2)·C(3,3)/252 = 21/252 > 0.05. open
    #   after 4 (0/4, 1 left): solved → 1/5, p = C(6,1)·C(4,4)/252 = 6/252 ≤ 0.05; unsolved or
    #     failed → 0/5, p = 1/252; an infra error or undetermined → 0/4, p = 1/C(9,4) = 1/126:
    #     a regression whatever it is (the pass test never drops below 4/5, p = 0.5).  settled
    assert len(lines["fails"]) == 4 and settled_after(lines["fails"]) == [4]
    assert "settled_after" not in lines["fails"][0].extra  # pass^k settled, the test not yet
    assert len(lines["new"]) == 1 and settled_after(lines["new"]) == [1]
    row = {r.task_id: r for r in outcome.summary.tasks}["fails"]
    assert (row.settled, row.settled_after, row.solve_k) == ("not met", 4, None)
    # the comparison says what every trial would have said
    full = run_eval(suite, [model], out=tmp_path / "full", concurrency=1, handle_sigint=False)
    assert labels(outcome.path, baselines)["fails"] == "regression"
    assert labels(full.path, baselines) == labels(outcome.path, baselines)


def test_a_pass_at_k_task_in_the_baseline_runs_until_no_drop_could_be_a_regression(tmp_path):
    suite = write_suite(tmp_path, [("solves-at", "open_ended", "pass@k")])
    baselines = blessed(tmp_path, suite, {})  # solved 5/5
    model = script(tmp_path, {})
    outcome = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                       baselines=baselines, handle_sigint=False)  # fmt: skip
    # pass@k is 1 after trial 1; with 4 left, 1/5 would give p = C(6,1)/C(10,5) = 6/252 (a
    # regression) and 5/5 none. After 2 (2/2, 3 left), the worst, 2/5, gives p = 21/252 > 0.05
    # on either test: never a regression.
    assert settled_after(lines_of(outcome.path)["solves-at"]) == [2]
    assert outcome.summary.finished_trials == 2


def test_a_baseline_that_cannot_drop_settles_with_the_first_failure(tmp_path):
    suite = write_suite(tmp_path, [("fails", "golden", "pass^k")])
    # the baseline's agent timed out every trial: passed 0/5, solved 0/5; nothing can drop
    baselines = blessed(tmp_path, suite, {"fails": {"error": "timeout"}})
    model = script(tmp_path, {"fails": "bye"})
    outcome = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                       baselines=baselines, handle_sigint=False)  # fmt: skip
    assert settled_after(lines_of(outcome.path)["fails"]) == [1]
    assert outcome.summary.finished_trials == 1
    assert labels(outcome.path, baselines)["fails"] == "improved"


def test_a_resume_keeps_the_baseline_rule(tmp_path, monkeypatch):
    suite = write_suite(tmp_path, [("fails", "golden", "pass^k")])
    baselines = blessed(tmp_path, suite, {})
    # a short pause per trial: the Ctrl-C below lands while trial 3 is in flight
    model = script(tmp_path, {"fails": {"content": "bye", "delay_s": 0.3}})
    seen: list[object] = []

    def interrupt(line: object) -> None:
        seen.append(line)
        if len(seen) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    first = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                     baselines=baselines, hooks=RunHooks(trial=interrupt))  # fmt: skip
    assert first.interrupted and first.summary.finished_trials == 2
    monkeypatch.chdir(tmp_path / "o")  # no ./baselines here: run.json says where it was
    again = run_eval(resume=first.path, concurrency=1, handle_sigint=False)
    assert again.trials_run == 2
    assert settled_after(lines_of(again.path)["fails"]) == [4]


def test_the_cli_passes_baselines_to_early_stop(tmp_path):
    suite = write_suite(tmp_path, [("fails", "golden", "pass^k")])
    baselines = blessed(tmp_path, suite, {})
    model = script(tmp_path, {"fails": "bye"})
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(suite), "-m", model, "--early-stop",
         "--baselines", str(baselines), "--out", str(tmp_path / "o"), "-j", "1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "settled after 4 of 5 (pass^k not met; 1 not run)" in proc.stdout
    assert "REGRESSION · drift fails: solved 5/5 → 0/4 (p = 0.0079)" in proc.stdout
