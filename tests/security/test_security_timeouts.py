"""Issue 32 item 8: every time limit is finite and bounded. A command grader's
`timeout_s: .inf` (or 1e308, 86401, or longer than its task's own `timeout_s`) is refused
by `validate` in one line; a grader config built in code is clamped at run time to a day
and to its task's `timeout_s`; the `[judge]` and retry time limits are finite too."""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from cli_support import cli
from process_support import alive, child_pids
from trialrun.graders import TrialView, grade_trial, parse_grader

TASK = """\
task_id: hang
suite: golden
description: a command grader with a time limit
inputs: {{prompt: hi}}
environment:
  budgets: {{timeout_s: {task_timeout}}}
graders:
  - {{type: command, run: "true", timeout_s: {timeout}}}
tracked_metrics: [pass_rate]
"""


@pytest.mark.parametrize(
    ("timeout", "task_timeout", "says"),
    [
        (".inf", 86400, "finite"),
        ("-.inf", 86400, "finite"),
        (".nan", 86400, "finite"),
        ("1e308", 86400, "86400"),
        ("86401", 86400, "86400"),
        ("true", 86400, "valid number"),
        ("40", 30, "longer than the task's environment.budgets.timeout_s (30s)"),
    ],
)
def test_unbounded_grader_timeout_is_refused_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], timeout: str, task_timeout: int, says: str
) -> None:
    file = tmp_path / "hang.yaml"
    file.write_text(TASK.format(timeout=timeout, task_timeout=task_timeout))
    code, out, err = cli(capsys, "validate", file)
    assert code == 2 and "Traceback" not in out + err
    problems = [line for line in (out + err).splitlines() if str(file) in line]
    assert len(problems) == 1
    assert "graders.0.timeout_s" in problems[0] and says in problems[0]


def test_a_grader_timeout_within_the_task_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "ok.yaml"
    file.write_text(TASK.format(timeout=30, task_timeout=30))
    code, out, err = cli(capsys, "validate", file)
    assert code == 0, out + err


@pytest.mark.parametrize("given", [math.inf, 1e308, math.nan, 86401.0, -1.0])
def test_a_config_built_in_code_is_clamped_to_its_tasks_timeout(
    tmp_path: Path, given: float
) -> None:
    """`model_construct` skips validation, as a plugin's or API user's config may: the
    command still stops at its task's `timeout_s` (here short, so the test ends)."""
    config = type(parse_grader({"type": "command", "run": "true"})).model_construct(
        type="command", run="sleep 30", timeout_s=given, expect_exit=0, name=None
    )
    task = SimpleNamespace(
        graders=[config], environment=SimpleNamespace(budgets=SimpleNamespace(
            timeout_s=0.3, tool_call_budget=None))
    )
    view = TrialView("hang", "hi", "", [], [], tmp_path)
    grade = asyncio.run(grade_trial(task, view))
    (verdict,) = grade.verdicts
    assert verdict.passed is False and verdict.details["timed_out"] is True
    assert verdict.details["timeout_s"] == 0.3


def test_without_a_task_timeout_a_command_runs_at_most_a_day(tmp_path: Path) -> None:
    config = type(parse_grader({"type": "command", "run": "true"})).model_construct(
        type="command", run="true", timeout_s=math.inf, expect_exit=0, name=None
    )
    task = SimpleNamespace(
        graders=[config], environment=SimpleNamespace(budgets=SimpleNamespace(
            timeout_s=None, tool_call_budget=None))
    )
    grade = asyncio.run(grade_trial(task, TrialView("t", "hi", "", [], [], tmp_path)))
    assert grade.verdicts[0].passed is True
    assert grade.verdicts[0].details["timeout_s"] == 86_400


@pytest.mark.parametrize("value", ["inf", "nan", "1e308", "86401"])
def test_judge_timeout_in_trialrun_toml_is_finite(tmp_path: Path, value: str) -> None:
    from trialrun.config import load_config
    from trialrun.errors import UserError
    from trialrun.judge import JudgeSettings

    (tmp_path / "trialrun.toml").write_text(f"[judge]\ntimeout_s = {value}\n")
    with pytest.raises(UserError, match="timeout_s"):
        JudgeSettings.from_config(load_config(tmp_path / "trialrun.toml"))


@pytest.mark.parametrize("value", ["inf", "nan", "1e308"])
@pytest.mark.parametrize("key", ["request_timeout_s", "max_delay_s", "base_delay_s"])
def test_retry_waits_are_finite(monkeypatch: pytest.MonkeyPatch, key: str, value: str) -> None:
    from trialrun.errors import UserError
    from trialrun.models import RetryPolicy

    monkeypatch.setenv(f"TRIALRUN_RETRY_{key.upper()}", value)
    with pytest.raises(UserError, match=key):
        RetryPolicy.load()


# --- the pre-run power estimate: off the event loop, cancellable, bounded -------------

SLOW_ROWS = [(10_000, 0.9)] * 3  # an exact estimate of minutes (3 tasks at k = 10000)

SMALL_TASK = """\
task_id: {name}
suite: golden
description: say hi
inputs: {{prompt: say hi}}
graders: [{{type: contains, value: hi}}]
tracked_metrics: [pass_rate]
"""


def _suite(root: Path, names: list[str]) -> tuple[Path, Path]:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        (root / f"{name}.yaml").write_text(SMALL_TASK.format(name=name))
    script = root.parent / "script.yaml"
    script.write_text(
        "tasks:\n" + "".join(f"  {name}:\n    - content: hi\n" for name in names)
    )
    return root, script


def _start_big_run(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """`trialrun run` of 3 scripted tasks × k = 10000 (30,000 trials) into tmp_path/out."""
    suite, script = _suite(tmp_path / "suite", ["a", "b", "c"])
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "trialrun", "run", str(suite), "-k", "10000",
         "-m", f"scripted:{script}", "--out", str(out)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )  # fmt: skip
    return proc, out


def _a_trial_is_written(out: Path) -> Callable[[], bool]:
    return lambda: any(f.stat().st_size > 0 for f in out.glob("*/results.jsonl"))


def _poll(condition, seconds: float) -> bool:
    """Poll `condition` every 0.1 s; whether it came true within `seconds` (a hang bound,
    not a timing assertion)."""
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def _said() -> tuple[list[str], object]:
    import threading

    lines: list[str] = []
    event = threading.Event()

    def say(line: str) -> None:
        lines.append(line)
        event.set()

    return lines, (say, event)


def test_an_estimate_over_its_budget_is_skipped_and_its_process_killed() -> None:
    from trialrun.cli._power_estimate import PowerEstimate

    lines, (say, event) = _said()
    estimate = PowerEstimate(SLOW_ROWS, 0.05, "exact", say, budget_s=0.5)
    estimate.start()
    assert estimate.pid is not None
    assert event.wait(120)
    assert lines == [
        "power estimate skipped: it took over 0.5s (`trialrun plan` computes it without a "
        "time limit)"
    ]
    assert _poll(lambda: not alive(estimate.pid), 30)
    estimate.settle(wait=True)
    assert lines == lines[:1]


def test_a_quick_estimate_is_said_once_and_settle_without_wait_says_nothing() -> None:
    from trialrun.cli._power_estimate import PowerEstimate

    lines, (say, _) = _said()
    quick = PowerEstimate([(5, 0.9)] * 2, 0.05, "exact", say, budget_s=120)
    quick.start()
    quick.settle(wait=True)
    assert len(lines) == 1 and lines[0].startswith("power: 2 task(s) at k = 5 can detect")

    quiet, (say_quiet, _) = _said()
    slow = PowerEstimate(SLOW_ROWS, 0.05, "exact", say_quiet, budget_s=120)
    slow.start()
    slow.settle(wait=False)  # Ctrl-C: the run does not wait for it
    assert quiet == [] and slow.pid is not None and not alive(slow.pid)


def test_trials_start_while_the_estimate_runs_and_ctrl_c_exits_130(tmp_path: Path) -> None:
    """The issue's case: the power estimate ran on the event loop, so a big suite never
    started a trial and Ctrl-C waited for the estimate. Now the first trial is written
    while it runs, and SIGINT ends the run (130) and its estimate process."""
    import signal

    proc, out = _start_big_run(tmp_path)
    try:
        assert _poll(_a_trial_is_written(out), 120), "no trial started while the estimate ran"
        estimates = child_pids(proc.pid, "_power_estimate")
        proc.send_signal(signal.SIGINT)
        assert _poll(lambda: proc.poll() is not None, 60), "Ctrl-C did not end the run"
        _, err = proc.communicate()
        assert proc.returncode == 130, err.decode()
        assert "Traceback" not in err.decode()
        assert all(_poll(lambda pid=pid: not alive(pid), 30) for pid in estimates)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_resumed_run_does_not_estimate_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite, script = _suite(tmp_path / "suite", ["a"])
    out = tmp_path / "out"
    code, _, err = cli(capsys, "run", suite, "-k", "2", "-m", f"scripted:{script}", "--out", out)
    assert code == 0 and err.startswith("power: 1 task(s) at k = 2"), err
    (run_dir,) = out.iterdir()
    code, _, err = cli(capsys, "run", "--resume", run_dir)
    assert code == 0, err
    assert "power" not in err


@pytest.mark.parametrize("value", ["1e308", "86401", "inf", "nan"])
def test_tool_time_limits_are_at_most_a_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    from trialrun.errors import UserError
    from trialrun.tools import TOOL_TIMEOUT_ENV, Toolbox, ToolContext

    ctx = ToolContext(tmp_path, "t", {})
    with pytest.raises(UserError, match="at most 86400"):
        Toolbox([], ctx, call_timeout_s=float(value))
    monkeypatch.setenv(TOOL_TIMEOUT_ENV, value)
    with pytest.raises(UserError, match=TOOL_TIMEOUT_ENV):
        Toolbox([], ctx)


def test_ctrl_c_stops_scheduling_even_when_no_trial_waits(tmp_path: Path) -> None:
    """A scripted trial never waits on the event loop, so one worker used to run the whole
    queue in one step: Ctrl-C was read after the last trial (every trial run anyway) or,
    when it came after the handler was gone, lost (exit 0). Each trial now yields."""
    import signal

    proc, out = _start_big_run(tmp_path)
    try:
        assert _poll(_a_trial_is_written(out), 120), "no trial was written"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err.decode()
        [results] = out.glob("*/results.jsonl")
        kept = sum(1 for _ in results.open())
        assert 0 < kept < 30_000, f"{kept} trials ran after Ctrl-C"
        assert f"interrupted: {kept} trial(s) kept" in err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
