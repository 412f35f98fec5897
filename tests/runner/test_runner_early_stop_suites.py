"""`[run] early_stop` in trialrun.toml: true (every task) or the suites whose tasks stop
early; `--early-stop` turns it on for every task; run.json keeps what was in force."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from trialrun import RunHooks
from trialrun import run as run_eval
from trialrun.rundir import RunDir


def write_suite(tmp_path, tasks: list[tuple[str, str]]):
    suite = tmp_path / "suite"
    suite.mkdir()
    for task_id, name in tasks:
        (suite / f"{task_id}.json").write_text(json.dumps({
            "task_id": task_id, "suite": name, "description": "d",
            "inputs": {"prompt": "p"}, "graders": [{"type": "contains", "value": "hello"}],
            "tracked_metrics": ["pass^k"], "trials": {"k": 5, "metric": "pass^k"},
        }))  # fmt: skip
    return suite


def failing_model(tmp_path, delay_s: float = 0.0) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"default": [{"content": "bye", "delay_s": delay_s}]}))
    return f"scripted:{path}"


def counts(path) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in RunDir.open(path).iter_results():
        out[line.task_id] = out.get(line.task_id, 0) + 1
    return out


TASKS = [("a-golden", "golden"), ("b-replay", "failure_replays")]


def config(tmp_path, value: str) -> None:
    (tmp_path / "trialrun.toml").write_text(f"[run]\nearly_stop = {value}\n")


def test_only_the_listed_suites_stop_early(tmp_path, monkeypatch):
    suite = write_suite(tmp_path, TASKS)
    config(tmp_path, '["failure_replays"]')
    monkeypatch.chdir(tmp_path)
    outcome = run_eval(suite, [failing_model(tmp_path)], out=tmp_path / "o", concurrency=1,
                       handle_sigint=False)  # fmt: skip
    assert counts(outcome.path) == {"a-golden": 5, "b-replay": 1}
    assert RunDir.open(outcome.path).manifest().extra["early_stop"] == ["failure_replays"]


def test_true_stops_every_suite_and_the_flag_overrides_a_list(tmp_path, monkeypatch):
    suite = write_suite(tmp_path, TASKS)
    monkeypatch.chdir(tmp_path)
    model = failing_model(tmp_path)
    config(tmp_path, "true")
    everything = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, handle_sigint=False)
    assert counts(everything.path) == {"a-golden": 1, "b-replay": 1}
    assert RunDir.open(everything.path).manifest().extra["early_stop"] is True
    config(tmp_path, '["failure_replays"]')
    flagged = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, early_stop=True,
                       handle_sigint=False)  # fmt: skip
    assert counts(flagged.path) == {"a-golden": 1, "b-replay": 1}
    config(tmp_path, "false")
    off = run_eval(suite, [model], out=tmp_path / "o", concurrency=1, handle_sigint=False)
    assert counts(off.path) == {"a-golden": 5, "b-replay": 5}
    assert "early_stop" not in RunDir.open(off.path).manifest().extra


def test_a_resume_keeps_the_suites_in_force_without_the_config(tmp_path, monkeypatch):
    suite = write_suite(tmp_path, TASKS)
    config(tmp_path, '["failure_replays"]')
    monkeypatch.chdir(tmp_path)
    seen: list[object] = []

    def interrupt(line: object) -> None:
        seen.append(line)
        if len(seen) == 1:  # a-golden's first trial: unsolved, but golden runs on
            os.kill(os.getpid(), signal.SIGINT)

    first = run_eval(suite, [failing_model(tmp_path, 0.3)], out=tmp_path / "o", concurrency=1,
                     hooks=RunHooks(trial=interrupt))  # fmt: skip
    assert first.interrupted and counts(first.path) == {"a-golden": 1}
    (tmp_path / "trialrun.toml").unlink()
    again = run_eval(resume=first.path, concurrency=1, handle_sigint=False)
    assert counts(again.path) == {"a-golden": 5, "b-replay": 1}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"golden"', "[run] early_stop must be true, false or a list of suite names"),
        ("3", "[run] early_stop must be true, false or a list of suite names"),
        ('["golden", "gold"]', "[run] early_stop: unknown suite 'gold'; use some of golden, "
         "adversarial, open_ended, failure_replays"),
    ],
)
def test_a_wrong_setting_is_one_line_naming_the_file_and_the_key(tmp_path, value, message):
    suite = write_suite(tmp_path, TASKS)
    config(tmp_path, value)
    proc = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(suite), "-m", failing_model(tmp_path),
         "--out", str(tmp_path / "o")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"{tmp_path / 'trialrun.toml'}: {message}" in proc.stderr
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())
