"""Issue 32 item 8: every time limit is finite and bounded. A command grader's
`timeout_s: .inf` (or 1e308, 86401, or longer than its task's own `timeout_s`) is refused
by `validate` in one line; a grader config built in code is clamped at run time to a day
and to its task's `timeout_s`; the `[judge]` and retry time limits are finite too."""

from __future__ import annotations

import asyncio
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from trialrun.cli import main
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


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    old = sys.argv
    sys.argv = ["trialrun", *(str(a) for a in args)]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    out, err = capsys.readouterr()
    return code, out, err


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
    code, out, err = _cli(capsys, "validate", file)
    assert code == 2 and "Traceback" not in out + err
    problems = [line for line in (out + err).splitlines() if str(file) in line]
    assert len(problems) == 1
    assert "graders.0.timeout_s" in problems[0] and says in problems[0]


def test_a_grader_timeout_within_the_task_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "ok.yaml"
    file.write_text(TASK.format(timeout=30, task_timeout=30))
    code, out, err = _cli(capsys, "validate", file)
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
