"""The simulated user of multi-turn tasks: its view of the chat, its model, the turn limit,
and the support-chat_resolution example run both ways through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli_support import cli_process
from trialrun.agents import conversation_text
from trialrun.agents._simulated_user import USER_NAME, model_spec, user_view
from trialrun.judge import rubric_prompt
from trialrun.rundir import RunDir
from trialrun.tasks import SimulatedUser, load_tasks

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
USER = SimulatedUser(persona="Sam", scenario="wants a refund", stop="<END>")

CHAT = [
    {"role": "system", "content": "agent system"},
    {"role": "user", "content": "I want a refund."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "function": {}}]},
    {"role": "tool", "tool_call_id": "1", "content": "order 7"},
    {"role": "assistant", "content": "Which order?"},
    {"role": "user", "name": USER_NAME, "content": "Order 7."},
    {"role": "assistant", "content": "Refunded."},
]


def test_the_user_sees_the_chat_from_its_side() -> None:
    view = user_view(CHAT, USER, "I want a refund.")
    assert view[0]["role"] == "system"
    assert "Sam" in view[0]["content"] and "<END>" in view[0]["content"]
    assert 'You opened the conversation with: "I want a refund."' in view[0]["content"]
    assert view[1:] == [
        {"role": "user", "content": "Which order?"},
        {"role": "assistant", "content": "Order 7."},
        {"role": "user", "content": "Refunded."},
    ]


def test_conversation_text_is_what_judges_read() -> None:
    assert conversation_text(CHAT) == (
        "User: I want a refund.\n\nAssistant: Which order?\n\nUser: Order 7.\n\n"
        "Assistant: Refunded."
    )


def test_a_relative_scripted_user_is_taken_from_the_task_folder() -> None:
    [task] = [t for t in load_tasks([EXAMPLES / "tasks" / "open_ended"]).tasks
              if t.task_id == "support-chat_resolution"]
    assert task.inputs.user is not None and task.inputs.user.max_turns == 4
    assert "user" not in task.inputs.extra
    spec = model_spec(task.inputs.user, task)
    assert spec == f"scripted:{EXAMPLES / 'scripts' / 'support_user.yaml'}"
    assert model_spec(SimulatedUser(persona="a", scenario="b"), task) is None


@pytest.mark.parametrize(
    ("user", "message"),
    [
        ({"persona": "a"}, "inputs.user.scenario"),
        ({"persona": "a", "scenario": "b", "max_turns": 0}, "inputs.user.max_turns"),
        ({"persona": "a", "scenario": "b", "stopp": "x"}, "did you mean 'stop'"),
    ],
)
def test_bad_user_blocks_are_problems(tmp_path: Path, user: dict, message: str) -> None:
    task = {"task_id": "t", "suite": "open_ended", "description": "d",
            "inputs": {"prompt": "hi", "user": user}, "graders": [{"type": "contains",
                                                                   "value": "x"}],
            "tracked_metrics": ["pass@k"]}
    (tmp_path / "t.json").write_text(json.dumps(task))
    problems = [str(p) for p in load_tasks([tmp_path]).problems]
    assert any(message in p for p in problems), problems


def trialrun(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return cli_process(*args, cwd=cwd, env={**os.environ, **(env or {})})


CHATTY = """
task_id: chatty
suite: open_ended
description: a user who never says goodbye
inputs:
  prompt: Tell me a joke.
  user: {persona: a bored user, scenario: wants jokes forever, max_turns: 2,
         model: scripted:user.yaml}
environment: {sandbox: none}
graders: [{type: contains, value: joke}]
tracked_metrics: [pass@k]
trials: {k: 1}
"""


def test_the_user_turn_limit_fails_the_trial_not_the_run(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "chatty.yaml").write_text(CHATTY)
    (tmp_path / "suite" / "user.yaml").write_text("default:\n  - content: another one\n")
    (tmp_path / "agent.yaml").write_text("default:\n  - content: a joke\n")
    proc = trialrun("run", "suite", "--model", f"scripted:{tmp_path / 'agent.yaml'}",
                    "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    [row] = doc["tasks"]
    assert row["passed"] == 0 and row["errors"] == {"user_max_turns": 1}
    rundir = RunDir.open(tmp_path / doc["run_dir"])
    [line] = rundir.results()
    data = rundir.transcript(line).to_json()
    sims = [m for m in data["messages"] if m.get("name") == USER_NAME]
    assert [m["content"] for m in sims] == ["another one", "another one"]
    assert sum(1 for t in data["turns"] if t.get("simulated_user")) == 2
    assert "within 2 replies" in data["error"]["message"]


@pytest.mark.parametrize(("script", "solved"), [("good.yaml", 2), ("bad.yaml", 0)])
def test_support_chat_example_both_ways(tmp_path: Path, script: str, solved: int) -> None:
    judge = tmp_path / "judge.yaml"
    judge.write_text('default:\n  - content: "Reads fine.\\nSCORE: 5"\n')
    proc = trialrun(
        "run", str(EXAMPLES / "tasks" / "open_ended"), "--task", "support-chat_resolution",
        "--model", f"scripted:{EXAMPLES / 'scripts' / script}", "--judge",
        f"scripted:{judge}", "-k", "2", "--out", "out", "--json", cwd=tmp_path,
        env={"TRIALRUN_JUDGE_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    [row] = doc["tasks"]
    assert row["solved"] == solved and row["errors"] == {}
    if not solved:
        assert set(row["failed_graders"]) == {"frontmatterEquals", "expectedTools"}
        return
    run_dir = tmp_path / doc["run_dir"]
    rundir = RunDir.open(run_dir)
    result = rundir.results()[0]
    line, transcript = result.to_json(), rundir.transcript(result).to_json()
    sims = [m["content"] for m in transcript["messages"] if m.get("name") == USER_NAME]
    assert sims == ["It's 48 Harbour Rd, Leeds LS1 4DY.", "Perfect, thank you! ###DONE###"]
    # the judge read the whole conversation, not only the last answer
    rubric = next(v for v in line["verdicts"] if v["grader"] == "llmRubric")
    chat = conversation_text(transcript["messages"])
    assert "User: It's 48 Harbour Rd" in chat
    prompt = rubric_prompt(line["user_message"], chat, rubric["details"]["rubric"], 1, 5)
    assert rubric["details"]["prompt_sha256"] == prompt.sha256


SLOW_USER = """
task_id: slow-user
suite: open_ended
description: a user who takes their time; the agent answers at once
inputs:
  prompt: Tell me a joke.
  user: {persona: a slow typist, scenario: three jokes then bye, max_turns: 3,
         stop: "###DONE###", model: scripted:user.yaml}
environment: {sandbox: none, budgets: {timeout_s: 1}}
graders: [{type: contains, value: joke}]
tracked_metrics: [pass@k]
trials: {k: 1}
"""


def test_the_users_time_is_not_the_agents_budget(tmp_path: Path) -> None:
    """Three user replies of 0.6 s each (1.8 s) inside a 1 s budget: the agent spent almost
    nothing, so the trial passes (it timed out while the user's time was charged)."""
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "slow.yaml").write_text(SLOW_USER)
    (tmp_path / "suite" / "user.yaml").write_text(
        "default:\n  - {content: another one, delay_s: 0.6}\n"
        "  - {content: one more, delay_s: 0.6}\n  - {content: 'bye ###DONE###', delay_s: 0.6}\n")
    (tmp_path / "agent.yaml").write_text("default:\n  - content: a joke\n")
    proc = trialrun("run", "suite", "--model", f"scripted:{tmp_path / 'agent.yaml'}",
                    "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["tasks"]
    assert row["errors"] == {} and row["passed"] == 1
    rundir = RunDir.open(tmp_path / json.loads(proc.stdout)["run_dir"])
    [line] = rundir.results()
    data = rundir.transcript(line).to_json()
    assert [m["content"] for m in data["messages"] if m.get("name") == USER_NAME] == [
        "another one", "one more", "bye ###DONE###"]


def test_a_user_who_opens_answers_the_greeting_first() -> None:
    opener = SimulatedUser(persona="Sam", scenario="wants a refund", stop="<END>", opens=True)
    assert user_view([], opener, "Hi! How can I help you today?") == [
        {"role": "system", "content": user_view([], opener, "x")[0]["content"]},
        {"role": "user", "content": "Hi! How can I help you today?"},
    ]
    assert "You opened the conversation" not in user_view([], opener, "x")[0]["content"]
    view = user_view(CHAT[2:], opener, "Hi!")  # after its opening, the chat as before
    assert view[1:] == [
        {"role": "user", "content": "Hi!"},
        {"role": "user", "content": "Which order?"},
        {"role": "assistant", "content": "Order 7."},
        {"role": "user", "content": "Refunded."},
    ]


OPENER = """
task_id: opener
suite: open_ended
description: the user speaks first, under the task's own system prompt
inputs:
  prompt: Hi! How can I help you today?
  system_prompt: "You are the airline's agent. Policy: be brief."
  user: {persona: a traveller, scenario: wants a seat, max_turns: 3, stop: "###STOP###",
         model: scripted:user.yaml, opens: true}
environment: {sandbox: none}
graders: [{type: contains, value: 12A}]
tracked_metrics: [pass@k]
trials: {k: 1}
"""


def test_an_opening_user_and_the_tasks_system_prompt_in_a_run(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "opener.yaml").write_text(OPENER)
    (tmp_path / "suite" / "user.yaml").write_text(
        "default:\n  - content: I need a seat.\n  - content: '###STOP###'\n")
    (tmp_path / "agent.yaml").write_text("default:\n  - content: Seat 12A is yours.\n")
    proc = trialrun("run", "suite", "--model", f"scripted:{tmp_path / 'agent.yaml'}",
                    "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["tasks"]
    assert row["errors"] == {} and row["solved"] == 1
    rundir = RunDir.open(tmp_path / json.loads(proc.stdout)["run_dir"])
    messages = rundir.transcript(rundir.results()[0]).to_json()["messages"]
    assert [(m["role"], m.get("name"), m["content"]) for m in messages] == [
        ("system", None, "You are the airline's agent. Policy: be brief."),
        ("user", USER_NAME, "I need a seat."),
        ("assistant", None, "Seat 12A is yours."),
        ("user", USER_NAME, "###STOP###"),
    ]


def test_an_agent_that_answers_once_is_run_once_per_user_turn(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "chatty.yaml").write_text(CHATTY.replace("max_turns: 2", "max_turns: 3"))
    (tmp_path / "suite" / "user.yaml").write_text(
        "default:\n  - content: another one\n  - content: 'bye ###DONE###'\n")
    (tmp_path / "jokes.py").write_text(
        "def tell(task_input, workspace, tools, model):\n"
        "    return f'joke {task_input.prompt.count(\"User: \")}'\n")
    proc = trialrun("run", "suite", "--agent", "jokes.py:tell", "--model",
                    "scripted:suite/user.yaml", "--out", "out", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["tasks"]
    assert row["errors"] == {} and row["solved"] == 1
    rundir = RunDir.open(tmp_path / json.loads(proc.stdout)["run_dir"])
    messages = rundir.transcript(rundir.results()[0]).to_json()["messages"]
    # each turn's prompt is the chat so far: one user message, then two
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "Tell me a joke."),
        ("assistant", "joke 1"),
        ("user", "another one"),
        ("assistant", "joke 2"),
        ("user", "bye ###DONE###"),
    ]
