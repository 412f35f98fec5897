"""Ten recorded nightly runs make a test promotable; `trialrun promote` re-runs it and
rewrites a YAML task (comments kept) and a pytest file; `trialrun history` prints the
7-run table. On SQLite and on a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

import pytest

import trialrun
from cli_support import cli_process
from trialrun.history import HistoryStore, Outcome, RunRecord, TrialRecord

TASK = """\
# Read the note and name the first item.  (a comment promote must keep)
task_id: read-lantern
suite: golden
tier: T1
description: name the first item of the todo list
inputs: {prompt: What is the first item in todo.md?}
policy: USUALLY_PASSES   # set by the record, not by hand
environment:
  fixture: basic
graders:
  - {type: expectedTools, tools: [read_file]}   # it must read
  - {type: contains, value: lantern oil}
tracked_metrics: [pass^k]
trials: {k: 3}
"""

PYTEST_FILE = '''\
from trialrun.testing import eval_test


# the decorator's first argument is the only thing promote touches
@eval_test("USUALLY_PASSES", prompt="What is the first item in todo.md?",
           files={"todo.md": "- buy lantern oil\\n"})
def test_reads(rig, result):
    assert "lantern oil" in result
    assert rig.called("read_file", path="todo.md")
'''

AGENT = """\
tasks:
  read-lantern: &reads
    - tool_calls: [{name: read_file, arguments: {path: todo.md}}]
    - content: The first item is to buy lantern oil.
  test_reads: *reads
"""

MODEL = "scripted:agent.yaml"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tasks" / "fixtures" / "basic").mkdir(parents=True)
    (tmp_path / "tasks" / "fixtures" / "basic" / "todo.md").write_text("- buy lantern oil\n")
    (tmp_path / "tasks" / "lantern.yaml").write_text(TASK)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_p.py").write_text(PYTEST_FILE)
    (tmp_path / "agent.yaml").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    return tmp_path




def _record_nightlies(project: Path, url: str, count: int, start: int = 0) -> None:
    """`count` nightly task runs (real runs, imported by the CLI) and pytest sessions."""
    runs = [
        trialrun.run("tasks", [MODEL], out="results", handle_sigint=False).path
        for _ in range(count)
    ]
    done = cli_process("history", "import", *map(str, runs), "--trigger", "nightly", "--store", url,
                cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("recorded: ") == count
    source = str(project / "evals" / "test_p.py")
    with HistoryStore.open(url) as store:
        for i in range(start, start + count):
            store.record(RunRecord(
                f"pytest-{i}", f"2026-11-{i + 1:02d}T03:00:00Z", "nightly", source="pytest",
                models=[MODEL],
                outcomes=[Outcome("evals/test_p.py::test_reads", MODEL, kind="pytest",
                                  source=source, policy="USUALLY_PASSES", k=1,
                                  trials=[TrialRecord(0, "solved")])],
            ))


def test_ten_nightly_runs_promote_a_yaml_task_and_a_pytest_test(
    project: Path, store_url: str
) -> None:
    _record_nightlies(project, store_url, 9)
    early = cli_process("promote", "--store", store_url, cwd=project)
    assert early.returncode == 0, early.stderr
    assert "read-lantern: stays USUALLY_PASSES (scripted:agent.yaml: 9 of 10 nightly runs)" \
        in early.stdout
    assert "nothing to promote" in early.stdout

    _record_nightlies(project, store_url, 1, start=9)
    dry = cli_process("promote", "--store", store_url, "--dry-run", cwd=project)
    assert dry.returncode == 0, dry.stderr
    assert "would promote read-lantern: USUALLY_PASSES → ALWAYS_PASSES" in dry.stdout
    assert "would promote evals/test_p.py::test_reads: USUALLY_PASSES → ALWAYS_PASSES" \
        in dry.stdout
    assert (project / "tasks" / "lantern.yaml").read_text() == TASK

    done = cli_process("promote", "--store", store_url, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "promoted read-lantern: USUALLY_PASSES → ALWAYS_PASSES" in done.stdout
    assert "verified locally: scripted:agent.yaml 3/3" in done.stdout
    assert "promoted evals/test_p.py::test_reads: USUALLY_PASSES → ALWAYS_PASSES" in done.stdout
    # one token changed in each file; comments and layout kept
    assert (project / "tasks" / "lantern.yaml").read_text() == TASK.replace(
        "policy: USUALLY_PASSES   #", "policy: ALWAYS_PASSES   #")
    assert (project / "evals" / "test_p.py").read_text() == PYTEST_FILE.replace(
        '@eval_test("USUALLY_PASSES"', '@eval_test("ALWAYS_PASSES"')
    assert trialrun.load_tasks(["tasks"]).tasks[0].policy == "ALWAYS_PASSES"
    with HistoryStore.open(store_url) as store:
        changes = store.policy_changes()
    assert [(c["test_id"], c["action"], c["to_policy"]) for c in changes] == [
        ("evals/test_p.py::test_reads", "promote", "ALWAYS_PASSES"),
        ("read-lantern", "promote", "ALWAYS_PASSES"),
    ]

    again = cli_process("promote", "--store", store_url, cwd=project)
    assert "already says ALWAYS_PASSES" in again.stdout  # nothing is rewritten twice

    table = cli_process("history", "--store", store_url, "--trigger", "nightly", cwd=project)
    assert table.returncode == 0, table.stderr
    assert "## Eval history (7 runs; last 7, branch main, trigger nightly)" in table.stdout
    row = next(line for line in table.stdout.splitlines() if line.startswith("| read-lantern"))
    assert row.count("100% (3/3)") == 7  # the 7 newest of its 10 runs, one column each
    assert "test_reads" not in table.stdout  # its sessions are older than those 7 runs
    assert "Nothing trending worse." in table.stdout


def test_a_failed_local_rerun_blocks_the_promotion(project: Path, store_url: str) -> None:
    _record_nightlies(project, store_url, 10)
    (project / "agent.yaml").write_text("default: [{content: no idea}]\n")
    done = cli_process("promote", "--store", store_url, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "not promoted read-lantern: USUALLY_PASSES → ALWAYS_PASSES: the local re-run did " \
        "not confirm it (scripted:agent.yaml 0/3)" in done.stdout
    assert (project / "tasks" / "lantern.yaml").read_text() == TASK


def test_demote_an_always_passes_task_that_failed_in_ci(project: Path, store_url: str) -> None:
    task = project / "tasks" / "lantern.yaml"
    task.write_text(TASK.replace("USUALLY_PASSES", "ALWAYS_PASSES"))
    with HistoryStore.open(store_url) as store:
        for i, solved in enumerate([3, 3, 2]):
            store.record(RunRecord(
                f"ci-{i}", f"2026-11-0{i + 1}T03:00:00Z", "ci", models=[MODEL],
                outcomes=[Outcome("read-lantern", MODEL, source=str(task),
                                  policy="ALWAYS_PASSES", k=3,
                                  trials=[TrialRecord(t, "solved" if t < solved else "failed")
                                          for t in range(3)])]))
    dry = cli_process("demote", "--store", store_url, "--dry-run", cwd=project)
    assert "would demote read-lantern: ALWAYS_PASSES → USUALLY_PASSES" in dry.stdout, dry.stderr
    done = cli_process("demote", "--store", store_url, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "demoted read-lantern: ALWAYS_PASSES → USUALLY_PASSES" in done.stdout
    assert task.read_text() == TASK
    with HistoryStore.open(store_url) as store:
        (change,) = store.policy_changes()
    assert (change["action"], change["from_policy"], change["models"]) == (
        "demote", "ALWAYS_PASSES", [MODEL])
