"""`trialrun import tau-bench`: a results file in τ-bench's published shape becomes a run
folder whose figures are exact, and rescoring in the taubench environment agrees with the
recorded rewards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tau_results_support import (
    FIXTURE,
    STOP,
    Chat,
    booking,
    entry,
    published_task,
    solved_trajectories,
    write,
)

from trialrun.benchmarks.taubench_results import (
    RescoreSource,
    import_results,
    iter_entries,
    name_import,
    solve_curve,
)
from trialrun.errors import UserError
from trialrun.metrics import summarize_rundir
from trialrun.rundir import RunDir


def trialrun(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trialrun", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))


def counts_file(folder: Path, successes: list[int], trials: int = 4) -> Path:
    """Task i has `trials` trials of which the first successes[i] have reward 1."""
    entries = [entry(task, trial, 1.0 if trial < c else 0.0)
               for trial in range(trials) for task, c in enumerate(successes)]
    return write(folder, entries)


# --- import → summarize: exact figures ---

def test_import_then_summarize_gives_the_exact_pass_k(tmp_path: Path) -> None:
    run = import_results(counts_file(tmp_path, [4, 2, 1]), tmp_path / "run")
    assert (run.trials, run.tasks) == (12, 3)
    rows = {r.task_id: r for r in summarize_rundir(RunDir.open(run.run_dir)).tasks}
    assert sorted(rows) == [f"taubench-airline-test-{i}" for i in range(3)]
    # τ-bench's pass^k is trialrun's solve^k (reward 1); at the task's k = 4: C(c,4)/C(4,4)
    assert [rows[f"taubench-airline-test-{i}"].solve_k for i in range(3)] == [1.0, 0.0, 0.0]
    assert [rows[f"taubench-airline-test-{i}"].solved for i in range(3)] == [4, 2, 1]
    # every episode ran to its end: passed (completed) 4/4
    assert all(r.pass_k == 1.0 and r.k == 4 for r in rows.values())
    # pass^k for k = 1..4, mean over tasks of C(c,k)/C(4,k), by hand:
    assert solve_curve(run.run_dir) == [
        (1, Fraction(1 + Fraction(1, 2) + Fraction(1, 4), 3)),  # 7/12
        (2, Fraction(1 + Fraction(1, 6) + 0, 3)),  # 7/18
        (3, Fraction(1, 3)),
        (4, Fraction(1, 3)),
    ]


def test_summarize_cli_prints_the_imported_figures(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = trialrun("import", "tau-bench", str(counts_file(tmp_path, [4, 2, 1])), "-o", str(out),
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "12 trials of 3 tasks; model openai:gpt-4o (from the file name), domain airline " \
           "(from the file name)" in done.stdout
    assert "its pass^k is trialrun's solve^k" in done.stdout
    summary = trialrun("summarize", str(out), "--json", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    aggregate = json.loads(summary.stdout)["aggregate"]["openai:gpt-4o"]
    assert aggregate["solve_k_rate"] == pytest.approx(1 / 3)
    assert aggregate["mean_solve_rate"] == pytest.approx(7 / 12)
    assert aggregate["pass_k_rate"] == 1.0


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(successes=st.lists(st.integers(0, 4), min_size=1, max_size=6))
def test_the_curve_is_c_choose_k_over_n_choose_k(
    tmp_path_factory: pytest.TempPathFactory, successes: list[int]
) -> None:
    folder = tmp_path_factory.mktemp("counts")
    run = import_results(counts_file(folder, successes), folder / "run")
    expected = [(k, sum((Fraction(comb(c, k), comb(4, k)) for c in successes), Fraction(0))
                 / len(successes)) for k in range(1, 5)]
    assert solve_curve(run.run_dir) == expected


# --- the results line and the transcript ---

def test_each_trial_keeps_its_tool_calls_results_and_turns(tmp_path: Path) -> None:
    traj = Chat().call("book_reservation", booking(insurance="yes"), "Error: no").call(
        "book_reservation", booking(), '{"reservation_id": "HATHAT"}').say("Booked.", STOP)
    run = import_results(write(tmp_path, [entry(0, 0, 1.0, traj.messages)]),
                         tmp_path / "run")
    folder = RunDir.open(run.run_dir)
    (line,) = folder.results()
    assert (line.task_id, line.model, line.provider, line.trial) == (
        "taubench-airline-test-0", "openai:gpt-4o", "openai", 0)
    assert (line.passed, line.solve, line.error) == (True, True, None)
    assert line.tool_calls == [
        {"name": "book_reservation", "arguments": booking(insurance="yes"), "ok": False},
        {"name": "book_reservation", "arguments": booking(), "ok": True},
    ]
    assert line.turns == 3 and line.tool_errors == 1 and line.recovered is True
    assert line.final_text == "Booked."
    assert line.extra["tau_reward"] == 1.0 and line.extra["imported_entry"] == 0
    assert line.verdicts[0]["grader"] == "taubench-recorded"
    transcript = folder.transcript(line)
    assert transcript.messages == traj.messages
    assert transcript.tool_results == ["Error: no", '{"reservation_id": "HATHAT"}']
    assert transcript.user_message == "Hi, I need help with my booking."


def test_a_cut_off_or_raised_episode_is_not_passed(tmp_path: Path) -> None:
    entries = [entry(0, 0, 0.0, ended=False), entry(0, 1, 0.0, [], error="RateLimitError"),
               entry(0, 2, 1.0)]
    run = import_results(write(tmp_path, entries), tmp_path / "run")
    lines = {line.trial: line for line in RunDir.open(run.run_dir).results()}
    assert (lines[0].passed, lines[0].solve, lines[0].error_kind) == (False, False, "max_turns")
    assert (lines[1].passed, lines[1].solve, lines[1].error_kind) == (False, False, "agent_error")
    assert "RateLimitError" in str(lines[1].error)
    assert (lines[2].passed, lines[2].solve) == (True, True)


# --- naming: the model and domain, and where they came from ---

@pytest.mark.parametrize(("name", "model", "domain"), [
    ("gpt-4o-airline.json", "openai:gpt-4o", "airline"),
    ("claude-3-5-sonnet-20241022-retail.json", "anthropic:claude-3-5-sonnet-20241022", "retail"),
    ("tool-calling-gpt-4o-mini-0.0_range_0--1_user-gpt-4o-llm_0115.json",
     "openai:gpt-4o-mini", None),
])
def test_model_and_domain_come_from_the_file_name(
    name: str, model: str, domain: str | None
) -> None:
    named = name_import(Path(name), None, None)
    assert (named.naming.model, named.naming.domain) == (model, domain)
    assert named.model_from == "the file name"


def test_given_model_and_domain_win_and_are_named_so() -> None:
    named = name_import(Path("gpt-4o-airline.json"), "openai-compat:llama-3-70b", "retail")
    assert (named.naming.model, named.model_from) == ("openai-compat:llama-3-70b", "--model")
    assert (named.naming.domain, named.domain_from) == ("retail", "--domain")
    assert named.naming.task_id(7) == "taubench-retail-test-7"
    assert name_import(Path("r.json"), "gpt-4o", "retail", "train").naming.task_id(3) == (
        "taubench-retail-train-3")
    secret = name_import(Path("r.json"), "openai-compat:llama@http://u:pw@host/v1", None)
    assert secret.naming.model == "openai-compat:llama"  # no base URL, no credentials


@pytest.mark.parametrize(("name", "model", "message"), [
    ("results.json", None, "results.json: the model 'results': cannot tell its provider; "
     "give --model PROVIDER:MODEL"),
    ("x.json", "llama-3", "--model llama-3: cannot tell its provider"),
])
def test_an_unknown_provider_asks_for_model(name: str, model: str | None, message: str) -> None:
    with pytest.raises(UserError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        name_import(Path(name), model, None)


# --- bad files: one line naming the file, the entry and the fix; nothing written ---

GOOD = entry(0, 0, 1.0)


@pytest.mark.parametrize(("text", "message"), [
    ('{"simulations": []}', "expected a JSON list of trials"),
    ("", "found an empty file"),
    ("[]", "an empty list (no trials)"),
    ("[1]", "entry 0: expected an object {task_id, trial, reward, info, traj}, got int"),
    (json.dumps([GOOD, {**GOOD, "trial": 1, "reward": "1"}]),
     "entry 1: reward must be a number from 0 to 1 (got '1')"),
    (json.dumps([{k: v for k, v in GOOD.items() if k != "reward"}]), "entry 0: missing reward"),
    (json.dumps([{**GOOD, "task_id": -1}]), "entry 0: task_id must be a whole number >= 0"),
    (json.dumps([{**GOOD, "traj": {}}]), "entry 0: traj must be a list of chat messages"),
    (json.dumps([GOOD, GOOD]), "entry 1: task 0 trial 0 is already entry 0; remove one"),
    (json.dumps([GOOD, {**GOOD, "trial": 1}])[:-40], "entry 1 is cut off by the end of the file"),
    (json.dumps([GOOD])[:-1], "the list ends after entry 0 without its closing ']'"),
    ("[" + json.dumps(GOOD) + ", {\"task_id\": 0, \"trial\": tru} ]",
     "entry 1 is not valid JSON (Expecting value"),
    ("[" + json.dumps(GOOD) + "] x", "text after the list's closing ']'"),
    ("[" + json.dumps({**GOOD, "info": {"user_cost": float("nan")}}) + "]",
     "entry 0 holds NaN, which is not JSON; replace it with a number or null"),
    ("[" + json.dumps(GOOD) + " " + json.dumps(GOOD) + "]",
     "expected ',' or ']' after entry 0, found '{'"),
], ids=lambda value: value[:24] if isinstance(value, str) and value.startswith("[") else None)
def test_a_bad_file_is_one_line_naming_the_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as caught:
        import_results(path, tmp_path / "run")
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # nothing left behind


def test_the_cli_exits_2_with_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, [GOOD, {**GOOD, "trial": "x"}])
    done = trialrun("import", "tau-bench", str(path), "-o", str(tmp_path / "run"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (f"trialrun: {path}: entry 1: trial must be a whole number >= 0 "
                           "(got 'x'); fix that entry or restore the file τ-bench wrote\n")
    again = trialrun("import", "tau-bench", str(write(tmp_path, [GOOD])), "-o", str(tmp_path),
                     cwd=tmp_path)
    assert again.returncode == 2 and "already exists; choose a new folder" in again.stderr
    rescore = trialrun("import", "tau-bench", str(path), "-o", str(tmp_path / "r"), "--rescore",
                       cwd=tmp_path)
    assert rescore.returncode == 2 and "--rescore needs --env PATH" in rescore.stderr


# --- streaming: any chunking reads the same entries; memory holds one entry ---

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)  # UTF-8 encodable


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8), max_size=6), chunk=st.integers(1, 9), indent=st.sampled_from([None, 1]))
@example(values=[0], chunk=3, indent=None)  # a number last in the file, the buffer moved at EOF
def test_streamed_entries_equal_the_parsed_list(
    values: list[Any], chunk: int, indent: int | None
) -> None:
    import io

    raw = json.dumps(values, indent=indent, ensure_ascii=False).encode("utf-8")
    got = [v for _, v in iter_entries(Path("r.json"), io.BytesIO(raw), chunk)]
    assert got == json.loads(raw)


def test_a_large_file_is_read_in_bounded_memory(tmp_path: Path) -> None:
    big = Chat()
    for i in range(40):
        big.say("x" * 500 + str(i), "fine")
    entries = [entry(t % 3, t // 3, 1.0, big.messages) for t in range(600)]
    path = write(tmp_path, entries, indent=None)
    size = path.stat().st_size
    assert size > 12_000_000
    tracemalloc.start()
    try:
        with path.open("rb") as handle:
            count = sum(1 for _ in iter_entries(path, handle))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 600
    assert peak < size / 3  # a chunk and an entry, never the file


# --- rescore in the taubench environment ---

def rescored_file(folder: Path, **overrides: Any) -> Path:
    entries = [entry(task, trial, reward, traj)
               for trial, (task, reward, traj) in enumerate(solved_trajectories())]
    for index, changed in overrides.items():
        entries[int(index.removeprefix("e"))].update(changed)
    return write(folder, entries)


def test_rescore_agrees_with_the_recorded_rewards(tmp_path: Path) -> None:
    run = import_results(rescored_file(tmp_path), tmp_path / "run",
                         rescore_in=RescoreSource(FIXTURE))
    report = run.rescore_json()
    assert (report["trials"], report["agree"], report["disagree"]) == (5, 5, 0)
    assert report["disagreements"] == [] and report["mismatched_tasks"] == []
    lines = RunDir.open(run.run_dir).results()
    assert [line.extra["rescore"]["reward"] for line in lines] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert [v["grader"] for v in lines[3].verdicts] == ["taubench-recorded", "taubench"]
    assert "missing output(s) in the replies: '210'" in lines[3].verdicts[1]["details"]["reason"]


def test_a_wrong_recorded_reward_is_listed_with_trialruns_reason(tmp_path: Path) -> None:
    path = rescored_file(tmp_path, e1={"reward": 1.0})
    done = trialrun("import", "tau-bench", str(path), "-o", str(tmp_path / "run"), "--env",
                    str(FIXTURE), "--rescore", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["trials"], report["agree"], report["disagree"]) == (5, 4, 1)
    (wrong,) = report["disagreements"]
    assert (wrong["task_id"], wrong["trial"], wrong["recorded"], wrong["trialrun"]) == (
        0, 1, 1.0, 0.0)
    assert "reservations/HATHAT: missing" in wrong["reason"]
    assert report["model_from"] == "the file name" and report["domain"] == "airline"


def test_the_rescore_lines_name_each_disagreement_and_mismatch(tmp_path: Path) -> None:
    other = {**published_task(1), "outputs": ["999"]}
    path = rescored_file(tmp_path, e1={"reward": 1.0},
                         e2={"info": {**entry(1, 0, 1.0)["info"], "task": other}})
    done = trialrun("import", "tau-bench", str(path), "-o", str(tmp_path / "run"), "--env",
                    str(FIXTURE), "--rescore", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2].endswith("agrees with the recorded one on 3/5 trials (1 disagree, 1 of a "
                             "mismatched task)")
    assert lines[3].startswith("  disagree: task 0 trial 1: recorded 1, trialrun 0 (the "
                               "database differs from the ground truth: reservations/HATHAT: "
                               "missing")
    assert lines[4] == ("  task mismatch: the recorded task 1 differs from airline test task 1 "
                        "in its required outputs (another version of the task file?)")


def test_a_different_recorded_task_is_a_mismatch_not_a_disagreement(tmp_path: Path) -> None:
    other = {**published_task(1), "outputs": ["999"]}
    reworded = {**published_task(2), "instruction": "You are mia_li_3668. Add a bag."}
    path = rescored_file(tmp_path, e2={"info": {**entry(1, 0, 1.0)["info"], "task": other}},
                         e4={"info": {**entry(2, 0, 1.0)["info"], "task": reworded}})
    run = import_results(path, tmp_path / "run", rescore_in=RescoreSource(FIXTURE))
    report = run.rescore_json()
    assert (report["agree"], report["disagree"], report["task_mismatch"]) == (4, 0, 1)
    (item,) = report["mismatched_tasks"]
    assert item["task_id"] == 1 and "differs from airline test task 1 in its required " \
        "outputs" in item["mismatch"]
    assert report["instruction_reworded"] == [2]
    line = RunDir.open(run.run_dir).results()[2]
    assert line.verdicts[1]["passed"] is None


def test_rescore_out_of_the_split_is_a_mismatch(tmp_path: Path) -> None:
    path = write(tmp_path, [entry(7, 0, 0.0, task={})])
    run = import_results(path, tmp_path / "run", rescore_in=RescoreSource(FIXTURE))
    (item,) = run.rescore_json()["mismatched_tasks"]
    assert item["mismatch"].startswith("no task 7 in airline test (it has 3)")


def test_rescore_needs_a_domain(tmp_path: Path) -> None:
    path = write(tmp_path, [GOOD], name="gpt-4o.json")
    with pytest.raises(UserError, match="--rescore needs the domain; give --domain"):
        import_results(path, tmp_path / "run", rescore_in=RescoreSource(FIXTURE))
