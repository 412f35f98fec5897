"""τ-bench through a suite file, end to end and offline: `name = "taubench"`, a checkout
in the published shapes as `dataset`, `split = "airline"`, `trials = 3`, a scripted
agent and a scripted user; pass^k and solve^k as printed, checked by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from math import comb
from pathlib import Path

from trialrun.benchmarks import expand, load_suite
from trialrun.rundir import RunDir

FIXTURE = Path(__file__).parent / "taubench_fixture"
BOOKING = {
    "user_id": "mia_li_3668",
    "origin": "JFK",
    "destination": "SEA",
    "flight_type": "one_way",
    "cabin": "economy",
    "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}],
    "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
    "payment_methods": [{"payment_id": "certificate_7504069", "amount": 200}],
    "total_baggages": 0,
    "nonfree_baggages": 0,
    "insurance": "no",
}
# task 0: the right booking (solved); task 1: cancelled, but the refund (210) never said
# (completed, not solved); task 2: the user never says ###STOP### (not completed)
AGENT = {
    "taubench-airline-test-0": [
        {"tool_calls": [{"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}]},
        {"tool_calls": [{"name": "book_reservation", "arguments": {**BOOKING, "cabin": "first"}}]},
        {"tool_calls": [{"name": "book_reservation", "arguments": BOOKING}]},
        {"content": "Booked: reservation HATHAT."},
    ],
    "taubench-airline-test-1": [
        {"tool_calls": [{"name": "cancel_reservation", "arguments": {"reservation_id": "ZFA04Y"}}]},
        {"content": "Cancelled; the refund goes back to your card."},
    ],
    "taubench-airline-test-2": [{"content": "Could you tell me more?"}],
}
USER = {
    "taubench-airline-test-0": [
        {"content": "I'd like to fly JFK to SEA on May 20."},
        {"content": "###STOP###"},
    ],
    "taubench-airline-test-1": [
        {"content": "Cancel ZFA04Y, please."},
        {"content": "Thanks ###STOP###"},
    ],
    "taubench-airline-test-2": [{"content": "I want to add a bag."}],
}
SUITE = """
[meta]
name = "tau-smoke"

[run]
output_dir = "out/"

[[models]]
name = "agent.json"
provider = "scripted"

[[benchmarks]]
name = "taubench"
backend = "jarvis-direct"
{dataset}
split = "{split}"
trials = {trials}
user_model = "scripted:user.json"
"""


def trialrun(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trialrun", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )


def write_suite(folder: Path, *, dataset: str | None, split: str = "airline", trials: int = 3,
                user: dict[str, object] | None = None,
                agent: dict[str, object] | None = None) -> Path:
    (folder / "agent.json").write_text(json.dumps({"tasks": agent or AGENT}), encoding="utf-8")
    (folder / "user.json").write_text(
        json.dumps({"tasks": user or USER, "default": [{"content": "###STOP###"}]}),
        encoding="utf-8",
    )
    line = f'dataset = "{dataset}"' if dataset else ""
    suite = folder / "suite.toml"
    suite.write_text(SUITE.format(dataset=line, split=split, trials=trials), encoding="utf-8")
    return suite


def pass_hat_k(c: int, n: int, k: int) -> float:
    return comb(c, k) / comb(n, k)


def test_a_taubench_suite_runs_end_to_end_with_pass_k_by_hand(tmp_path: Path) -> None:
    write_suite(tmp_path, dataset=str(FIXTURE))
    done = trialrun("run", "suite.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "backend 'jarvis-direct' is not used by taubench: its episodes run the built-in " in (
        done.stderr
    )
    # by hand, n = k = 3 trials per task: solved 3, 0, 0; completed 3, 3, 0
    solve_k = (pass_hat_k(3, 3, 3) + pass_hat_k(0, 3, 3) + pass_hat_k(0, 3, 3)) / 3
    pass_k = (pass_hat_k(3, 3, 3) + pass_hat_k(3, 3, 3) + pass_hat_k(0, 3, 3)) / 3
    assert (f"{solve_k:.1%}", f"{pass_k:.1%}") == ("33.3%", "66.7%")
    assert (
        "taubench × agent.json: accuracy 50.0% (3/6 scored, 95% CI 18.8%–81.2%); k=3 over 3 "
        f"task(s): solve^k {solve_k:.1%}, pass^k (completed) {pass_k:.1%}, errors 3 → "
    ) in done.stdout

    run_dir = next((tmp_path / "out/runs/taubench_agent.json").iterdir())
    summarized = trialrun("summarize", str(run_dir), "--json", cwd=tmp_path)
    figures = next(iter(json.loads(summarized.stdout)["aggregate"].values()))
    assert (figures["solve_k_rate"], figures["pass_k_rate"]) == (solve_k, pass_k)
    lines = RunDir.open(run_dir).results()
    assert len(lines) == 9 and {line.trial for line in lines} == {0, 1, 2}
    by_task = {line.task_id: line for line in lines if line.trial == 0}
    wrong = by_task["taubench-airline-test-1"].verdicts[0]["details"]
    assert wrong["reason"] == "missing output(s) in the replies: '210'"
    assert by_task["taubench-airline-test-2"].error == {
        "kind": "user_max_turns",
        "message": "the simulated user did not end the chat within 30 replies (no '###STOP###')",
    }
    # the refused booking (cabin "first") was an error result and changed nothing
    booked = by_task["taubench-airline-test-0"]
    assert [c["ok"] for c in booked.tool_calls] == [True, False, True]
    assert booked.solve is True

    transcript = json.loads(
        next((run_dir / "transcripts").iterdir()).read_text(encoding="utf-8").splitlines()[0]
    )
    messages = transcript["messages"]
    policy = (FIXTURE / "tau_bench/envs/airline/wiki.md").read_text(encoding="utf-8")
    assert messages[0] == {"role": "system", "content": policy}
    assert messages[1]["name"] == "simulated_user" and messages[1]["role"] == "user"


def test_without_a_checkout_the_suite_validates_and_the_run_stops_in_one_line(
    tmp_path: Path,
) -> None:
    suite = write_suite(tmp_path, dataset=None)
    pairs = expand(load_suite(suite))
    assert [(p.benchmark, p.dataset, p.trials) for p in pairs] == [("taubench", None, 3)]
    done = trialrun("run", "suite.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "trialrun: taubench × agent.json: no τ-bench checkout; set dataset = \"PATH\" in its "
        "[[benchmarks]] entry or pass --env PATH "
        "(git clone https://github.com/sierra-research/tau-bench)"
    )
    assert "Traceback" not in done.stderr


def test_env_k_and_both_domains_from_the_command_line(tmp_path: Path) -> None:
    write_suite(tmp_path, dataset=None, split="airline,retail", trials=3)
    done = trialrun("run", "suite.toml", "--env", str(FIXTURE), "-k", "1", "--json",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["runs"][0]
    assert (run["k"], run["tasks"]) == (1, 5)  # 3 airline + 2 retail tasks
    assert run["per_subject"]["retail"]["total"] == 2


def test_a_tau2_domain_is_named_as_such(tmp_path: Path) -> None:
    write_suite(tmp_path, dataset=str(FIXTURE), split="telecom")
    done = trialrun("run", "suite.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown τ-bench domain 'telecom' (a τ²-bench domain; τ-bench has airline and " in (
        done.stderr
    )


PYTHON_AGENT = '''
import json

BOOKING = json.loads(%r)


def serve(task_input, workspace, tools, model):
    """Answers once per user turn: the conversation so far is its prompt."""
    prompt = task_input.prompt
    assert prompt.startswith("# Airline Agent Policy"), prompt[:80]
    if "Booked" not in prompt and "book" in prompt:
        booked = json.loads(tools.call("book_reservation", BOOKING))
        return "Booked: reservation " + booked["reservation_id"]
    return "Anything else?"
'''


def test_a_python_agent_talks_to_the_simulated_user_turn_by_turn(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, dataset=str(FIXTURE), trials=2)
    (tmp_path / "my_agent.py").write_text(PYTHON_AGENT % json.dumps(BOOKING), encoding="utf-8")
    text = suite.read_text(encoding="utf-8").replace(
        'backend = "jarvis-direct"', 'agent = "my_agent.py:serve"\nmax_samples = 1'
    )
    suite.write_text(text, encoding="utf-8")
    user = {"taubench-airline-test-0": [
        {"content": "I'd like to book JFK to SEA on May 20."},
        {"content": "Thanks. ###STOP###"},
    ]}
    (tmp_path / "user.json").write_text(json.dumps({"tasks": user}), encoding="utf-8")
    done = trialrun("run", "suite.toml", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["runs"][0]
    assert (run["k"], run["tasks"], run["solve_k_rate"], run["pass_k_rate"]) == (2, 1, 1.0, 1.0)
    run_dir = next((tmp_path / "out/runs/taubench_agent.json").iterdir())
    [line, _] = RunDir.open(run_dir).results()
    assert [c["name"] for c in line.tool_calls] == ["book_reservation"]
    transcript = RunDir.open(run_dir).transcript(line).to_json()
    assert [(m["role"], m["content"]) for m in transcript["messages"]] == [
        ("user", "I'd like to book JFK to SEA on May 20."),
        ("assistant", "Booked: reservation HATHAT"),
        ("user", "Thanks. ###STOP###"),
    ]


def test_a_hand_off_to_a_human_ends_the_episode(tmp_path: Path) -> None:
    """Task 2's ground truth adds a bag, then transfers: the user (who never says stop)
    is not asked again, and the episode is scored as τ-bench scores it."""
    bag = {"reservation_id": "ZFA04Y", "total_baggages": 2, "nonfree_baggages": 1,
           "payment_id": "gift_card_1027364"}
    agent = {"taubench-airline-test-2": [
        {"tool_calls": [{"name": "update_reservation_baggages", "arguments": bag}]},
        {"content": "One moment.",
         "tool_calls": [{"name": "transfer_to_human_agents", "arguments": {"summary": "bag"}}]},
        {"tool_calls": [{"name": "cancel_reservation", "arguments": {"reservation_id": "ZFA04Y"}}]},
    ]}
    text = write_suite(tmp_path, dataset=str(FIXTURE), trials=1, agent=agent).read_text()
    (tmp_path / "suite.toml").write_text(text.replace('split = "airline"',
                                                      'split = "airline"\nmax_samples = 3'))
    done = trialrun("run", "suite.toml", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_dir = next((tmp_path / "out/runs/taubench_agent.json").iterdir())
    [line] = [r for r in RunDir.open(run_dir).results() if r.task_id.endswith("-2")]
    assert (line.passed, line.solve, line.error) == (True, True, None)
    assert [c["name"] for c in line.tool_calls] == [
        "update_reservation_baggages", "transfer_to_human_agents"
    ]
