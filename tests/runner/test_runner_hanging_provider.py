"""A provider that does not answer is infra; only answers, tools and the agent spend the budget.

Real HTTP on 127.0.0.1 (tests/runner/conftest.py's HangServer) through the openai-compat
client and the whole runner: a hanging provider ends the trial as an infrastructure error
(after the trial's re-runs) that is a failed pass and leaves the solve denominators; a
hang that the retry recovers from costs the trial nothing; answers that are too slow, too
many turns or a slow tool still fail it.
"""

from __future__ import annotations

import pytest

from trialrun import run as run_eval
from trialrun.errors import UserError
from trialrun.tasks import Task

pytestmark = pytest.mark.timeout(120)


def make_task(timeout_s: float | None, *, max_turns: int = 5, tools: list | None = None) -> Task:
    budgets: dict = {"max_turns": max_turns}
    if timeout_s is not None:
        budgets["timeout_s"] = timeout_s
    environment: dict = {"sandbox": "none", "budgets": budgets}
    if tools is not None:
        environment["tools"] = tools
    return Task.model_validate(
        {
            "task_id": "hang",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "p"},
            "environment": environment,
            "graders": [{"type": "contains", "value": "all done"}],
            "tracked_metrics": ["pass^k"],
        }
    )


def run_one(task: Task, model: str, tmp_path):
    outcome = run_eval([task], [model], k=1, out=tmp_path / "out", handle_sigint=False)
    (line,) = outcome.results
    return outcome, line


def test_a_provider_that_hangs_is_an_infra_error_not_a_failure(hang_server, retry_env, tmp_path):
    hang_server.script([], then="hang")
    outcome, line = run_one(make_task(timeout_s=1.0), hang_server.model, tmp_path)
    assert line.passed is None and line.solve is None
    assert line.error is not None and line.error["kind"] == "infra"
    assert "no answer within 1s" in line.error["message"]
    assert "after 2 attempt(s)" in line.error["message"]
    # each attempt at the trial: timed out, retried once, given up; the trial ran 3 times
    # ([retries] infra_trials = 2 by default)
    assert len(hang_server.requests) == 6
    assert line.extra["attempts"] == 3 and len(line.extra["retried_errors"]) == 2
    (row,) = outcome.summary.aggregate.values()  # the model's name carries no URL
    assert row["infra_errors"] == 1
    assert row["mean_pass_rate"] == 0.0 and row["pass_k_rate"] == 0.0  # a failed pass
    assert row["mean_solve_rate"] is None and row["solve_k_rate"] is None  # no denominator


def test_a_hang_the_retry_recovers_from_costs_the_trial_nothing(hang_server, retry_env, tmp_path):
    # two hangs of 0.6 s each: more wall time than the whole 1 s budget, none of it charged
    retry_env.setenv("TRIALRUN_RETRY_MAX_ATTEMPTS", "3")
    retry_env.setenv("TRIALRUN_RETRY_REQUEST_TIMEOUT_S", "0.6")
    hang_server.script(["hang", "hang", "answer"])
    _, line = run_one(make_task(timeout_s=1.0), hang_server.model, tmp_path)
    assert line.error is None
    assert line.passed is True and line.solve is True
    assert len(hang_server.requests) == 3


def test_the_request_limit_without_a_task_timeout_is_the_configured_one(
    hang_server, retry_env, tmp_path
):
    (tmp_path / "trialrun.toml").write_text("[retries]\nrequest_timeout_s = 0.3\n")
    hang_server.script(["hang"], then="answer")
    _, line = run_one(make_task(timeout_s=None), hang_server.model, tmp_path)
    assert line.passed is True and len(hang_server.requests) == 2


def test_answers_that_use_up_the_budget_fail_the_trial(hang_server, retry_env, tmp_path):
    # every answer is a tool call that takes 0.3 s: the answers' own time spends the budget
    hang_server.script([], then="call:list_files@0.3")
    _, line = run_one(make_task(timeout_s=1.0, max_turns=50), hang_server.model, tmp_path)
    assert line.passed is False and line.solve is False
    assert line.error is not None and line.error["kind"] == "timeout"
    assert 1 <= line.turns < 50
    # nothing was retried; a request begun on a spent budget is cut (not a turn)
    assert line.turns <= len(hang_server.requests) <= line.turns + 1


def test_a_slow_tool_fails_the_trial(hang_server, retry_env, tmp_path):
    (tmp_path / "slowtools.py").write_text(
        "import asyncio\n\n"
        "async def slow_tool() -> str:\n"
        '    """Takes far longer than any budget."""\n'
        "    await asyncio.sleep(60)\n"
        '    return "never"\n'
    )
    tools = ["vault", {"python": {"functions": [f"{tmp_path / 'slowtools.py'}:slow_tool"]}}]
    hang_server.script(["call:slow_tool"])
    task = make_task(timeout_s=1.0, tools=tools)
    _, line = run_one(task, hang_server.model, tmp_path)
    assert line.passed is False
    assert line.error is not None and line.error["kind"] == "timeout"
    assert len(hang_server.requests) == 1  # the budget ran out inside the tool


def test_a_model_whose_every_answer_is_late_is_an_infra_error_too(hang_server, retry_env, tmp_path):
    # an answer later than the whole task budget cannot be told from an outage
    hang_server.script([], then="answer@3")
    _, line = run_one(make_task(timeout_s=0.5), hang_server.model, tmp_path)
    assert line.passed is None and line.error["kind"] == "infra"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[retries]\nrequest_timeout_s = 0\n", "request_timeout_s = 0 is too small"),
        ("[retries]\nrequest_timeout_s = 'soon'\n", "is not a finite number"),
    ],
)
def test_a_bad_request_timeout_is_one_user_error(hang_server, retry_env, tmp_path, text, problem):
    (tmp_path / "trialrun.toml").write_text(text)
    with pytest.raises(UserError, match=problem) as info:  # the run's entry reads it, once
        run_one(make_task(timeout_s=None), hang_server.model, tmp_path)
    assert "trialrun.toml: [retries]" in str(info.value)
    assert hang_server.requests == []
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["def", "async def"])
def test_a_python_agent_gets_the_same_budget(hang_server, retry_env, tmp_path, kind):
    await_ = "await " if kind == "async def" else ""
    (tmp_path / "myagent.py").write_text(
        f"{kind} agent(task_input, workspace, tools, model):\n"
        f"    return ({await_}model.complete([{{'role': 'user', 'content': 'hi'}}])).text\n"
    )
    retry_env.setenv("TRIALRUN_RETRY_MAX_ATTEMPTS", "3")
    retry_env.setenv("TRIALRUN_RETRY_REQUEST_TIMEOUT_S", "0.6")
    hang_server.script(["hang", "hang", "answer"])
    outcome = run_eval(
        [make_task(timeout_s=1.0)],
        [hang_server.model],
        k=1,
        out=tmp_path / "out",
        agent=f"{tmp_path / 'myagent.py'}:agent",
        handle_sigint=False,
    )
    (line,) = outcome.results
    assert line.error is None and line.passed is True
    assert len(hang_server.requests) == 3


class _DeafModel:
    """A custom provider that ignores every time limit and never answers."""

    provider = "deaf"
    model_id = "x"

    async def complete(self, messages, tools, params):
        import asyncio

        await asyncio.sleep(3600)

    async def aclose(self) -> None:
        pass


def test_a_provider_that_ignores_its_request_limit_is_still_cut_off(retry_env, tmp_path):
    import trialrun
    from trialrun.runner import _budget

    trialrun.model_provider("deaf")(lambda model_id, options: _DeafModel())
    retry_env.setenv("TRIALRUN_RETRY_MAX_ATTEMPTS", "1")
    retry_env.setattr(_budget, "BACKSTOP_GRACE_S", 0.5)  # the backstop: 1 × (1 s + 0.02 s) + 0.5 s
    outcome, line = run_one(make_task(timeout_s=1.0), "deaf:x", tmp_path)
    assert line.passed is None and line.error is not None and line.error["kind"] == "infra"
    assert "no answer within" in line.error["message"]
