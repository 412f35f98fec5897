"""A trial that ends in an infra error is run again before it counts.

`[retries] infra_trials` in trialrun.toml (default 2) re-runs it, in a fresh workspace, in
the one per-trial function every executor shares; only the last attempt is written, with
`attempts` and the earlier attempts' `retried_errors`. An infra error that outlasts its
re-runs is a failed pass and leaves solve's denominator. `infra_trials = 0` turns re-runs
off; a bad value is one line naming trialrun.toml and the key, exit 2; a resumed run
still ends with every trial once.

Fault injection (tests/runner/conftest.py's `flaky_agent`): the agent's first calls raise
`InfraError`, as a provider down for a moment would end them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun import RunHooks, UserError
from trialrun import run as run_eval
from trialrun.config import ProjectConfig
from trialrun.models._retry import RetryPolicy
from trialrun.rundir import ResultLine, RunDir

pytestmark = pytest.mark.timeout(300)

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
INJECTED = "provider unreachable (injected failure {})"


def _suite(tmp_path: Path, k: int) -> Path:
    suite = tmp_path / "suite"
    (suite / "fixtures" / "note").mkdir(parents=True)
    (suite / "fixtures" / "note" / "note.txt").write_text("done")
    (suite / "task.yaml").write_text(TASK.format(task_id="flaky", k=k))
    return suite


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None) -> None:
    """Run from tmp_path, with this trialrun.toml (None: none, the defaults)."""
    if text is not None:
        (tmp_path / "trialrun.toml").write_text(text)
    monkeypatch.chdir(tmp_path)


def _lines(path: Path) -> list[ResultLine]:
    return sorted(RunDir.open(path).iter_results(), key=lambda line: line.trial)


def _failures(marks: Path) -> int:
    return len(list(marks.glob("failure-*")))


def test_an_infra_error_is_run_again_and_only_the_last_attempt_is_written(
    tmp_path, monkeypatch, flaky_agent
):
    _config(tmp_path, monkeypatch, None)  # the default: 2 re-runs
    agent, marks = flaky_agent(1)
    done = run_eval(_suite(tmp_path, k=3), out=tmp_path / "o", agent=agent,
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = _lines(done.path)
    assert [line.trial for line in lines] == [0, 1, 2]  # one line per trial, none twice
    assert all(line.passed is True and line.solve is True and not line.error for line in lines)
    [retried] = [line for line in lines if "attempts" in line.extra]
    assert retried.extra["attempts"] == 2
    assert retried.extra["retried_errors"] == [INJECTED.format(0)]
    transcript = RunDir.open(done.path).transcript(retried)
    assert transcript.error is None and transcript.extra["retried_errors"] == [INJECTED.format(0)]
    [row] = done.summary.tasks
    assert (row.infra_errors, row.pass_k, row.solve_k) == (0, 1.0, 1.0)
    assert _failures(marks) == 1 and len(list(marks.glob("answer-*"))) == 3


def test_infra_trials_zero_turns_re_runs_off_and_the_infra_error_is_a_failed_pass(
    tmp_path, monkeypatch, flaky_agent
):
    _config(tmp_path, monkeypatch, "[retries]\ninfra_trials = 0\n")
    agent, marks = flaky_agent(1)
    done = run_eval(_suite(tmp_path, k=3), out=tmp_path / "o", agent=agent,
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = _lines(done.path)
    [infra] = [line for line in lines if line.is_infra]
    assert "attempts" not in infra.extra and "retried_errors" not in infra.extra
    assert not any("attempts" in line.extra for line in lines)
    [row] = done.summary.tasks
    assert (row.n, row.pass_n, row.passed, row.infra_errors) == (2, 3, 2, 1)
    assert row.pass_k == 0.0  # C(2,3)/C(3,3): the infra error is a failed pass
    assert row.solve_k is None  # 2 counted for solve, fewer than k = 3
    assert _failures(marks) == 1


def test_an_infra_error_that_outlasts_its_re_runs_counts_once(tmp_path, monkeypatch, flaky_agent):
    _config(tmp_path, monkeypatch, "[retries]\ninfra_trials = 1\n")
    agent, marks = flaky_agent(100)  # every call fails
    done = run_eval(_suite(tmp_path, k=2), out=tmp_path / "o", agent=agent,
                    handle_sigint=False, fsync=False)  # fmt: skip
    lines = _lines(done.path)
    assert [line.trial for line in lines] == [0, 1] and all(line.is_infra for line in lines)
    assert [line.extra["attempts"] for line in lines] == [2, 2]
    assert all(len(line.extra["retried_errors"]) == 1 for line in lines)
    assert _failures(marks) == 4  # each trial ran twice
    [row] = done.summary.tasks
    assert (row.infra_errors, row.pass_n, row.pass_k, row.solve_k) == (2, 2, 0.0, None)
    assert done.summary.aggregate[done.summary.models[0]]["mean_pass_rate"] == 0.0


def test_worker_processes_run_it_again_too(tmp_path, monkeypatch, flaky_agent):
    _config(tmp_path, monkeypatch, None)
    agent, marks = flaky_agent(2)
    done = run_eval(_suite(tmp_path, k=4), out=tmp_path / "o", agent=agent, processes=2,
                    concurrency=2, handle_sigint=False, fsync=False)  # fmt: skip
    lines = _lines(done.path)
    assert [line.trial for line in lines] == [0, 1, 2, 3]
    assert all(line.passed is True and not line.error for line in lines)
    # two failed attempts, in one trial or two: each re-run is on the line it belongs to
    assert sum(line.extra.get("attempts", 1) - 1 for line in lines) == _failures(marks) == 2
    retried = [e for line in lines for e in line.extra.get("retried_errors", [])]
    assert sorted(retried) == [INJECTED.format(0), INJECTED.format(1)]


def test_a_resumed_run_ends_with_every_trial_once(tmp_path, monkeypatch, flaky_agent):
    _config(tmp_path, monkeypatch, None)
    agent, marks = flaky_agent(1)
    seen: list[object] = []

    def interrupt(line: object) -> None:
        seen.append(line)
        if len(seen) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    # one trial at a time: trial 0 fails, runs again, is written, and Ctrl-C comes
    first = run_eval(_suite(tmp_path, k=4), out=tmp_path / "o", agent=agent, concurrency=1,
                     hooks=RunHooks(trial=interrupt), fsync=False)  # fmt: skip
    assert first.interrupted and first.summary.finished_trials < 4
    again = run_eval(resume=first.path, concurrency=1, handle_sigint=False, fsync=False)
    lines = _lines(again.path)
    assert [line.trial for line in lines] == [0, 1, 2, 3]
    assert all(line.passed is True and not line.error for line in lines)
    assert [line.extra.get("attempts", 1) for line in lines] == [2, 1, 1, 1]
    assert again.summary.tasks[0].infra_errors == 0 and _failures(marks) == 1


@pytest.mark.parametrize("value", ['"two"', "-1", "true", "11", "1.5"])
def test_a_bad_infra_trials_is_one_line_naming_the_file_and_key(tmp_path, value, flaky_agent):
    (tmp_path / "trialrun.toml").write_text(f"[retries]\ninfra_trials = {value}\n")
    agent, _ = flaky_agent(0)
    suite = _suite(tmp_path, k=1)
    done = subprocess.run([sys.executable, "-m", "trialrun", "run", str(suite), "--agent", agent,
                           "--out", "o"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "trialrun.toml: [retries] infra_trials" in line and "0 to 10" in line
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists()  # nothing written


def test_the_provider_retry_settings_read_beside_it(tmp_path, monkeypatch):
    from trialrun.config import load_config
    from trialrun.runner._infra_trials import configured_infra_trials

    _config(tmp_path, monkeypatch, "[retries]\ninfra_trials = 1\nmax_attempts = 2\n")
    project = load_config()
    assert RetryPolicy.load(config=project).max_attempts == 2  # not a request setting
    assert configured_infra_trials(project) == 1


TOML_VALUES = st.one_of(
    st.integers(), st.booleans(), st.floats(), st.text(max_size=20),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers()),
)  # fmt: skip


@given(value=TOML_VALUES)
def test_infra_trials_is_a_count_up_to_ten_or_one_line_naming_the_key(value):
    from trialrun.runner._infra_trials import configured_infra_trials

    config = ProjectConfig(Path("/p/trialrun.toml"), {"retries": {"infra_trials": value}})
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10
    if ok:
        assert configured_infra_trials(config) == value
        return
    with pytest.raises(UserError) as caught:
        configured_infra_trials(config)
    message = str(caught.value)
    assert message.startswith("/p/trialrun.toml: [retries] infra_trials = ")
    assert "give 0 to 10" in message and caught.value.exit_code == 2
    assert "\n" not in message
