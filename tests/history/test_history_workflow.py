"""check-in, triage and lint through the CLI, with the scripted model."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cli_support import cli_process
from trialrun.history import HistoryStore, measure

TASK = """\
task_id: {tid}
suite: golden
description: d
inputs: {{prompt: What is in note.md?}}
{policy}environment: {{fixture: basic}}
graders: [{{type: contains, value: pineapple}}]
tracked_metrics: [pass^k]
"""

PYFILE = '''\
from trialrun.testing import eval_test


@eval_test("ALWAYS_PASSES", prompt="What is in note.md?", files={"note.md": "pineapple"})
def test_new(result):
    assert "pineapple" in result
'''

AGENT = """\
tasks:
  good: &good
    - tool_calls: [{name: read_file, arguments: {path: note.md}}]
    - content: It says pineapple.
  test_new: *good
  flaky: [{content: no idea}]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tasks" / "fixtures" / "basic").mkdir(parents=True)
    (tmp_path / "tasks" / "fixtures" / "basic" / "note.md").write_text("pineapple\n")
    (tmp_path / "tasks" / "good.yaml").write_text(TASK.format(tid="good", policy=""))
    (tmp_path / "tasks" / "flaky.yaml").write_text(
        TASK.format(tid="flaky", policy="policy: ALWAYS_PASSES\n"))
    (tmp_path / "test_new.py").write_text(PYFILE)
    (tmp_path / "agent.yaml").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI without TRIALRUN_HISTORY: each test names its store."""
    env = {k: v for k, v in os.environ.items() if k != "TRIALRUN_HISTORY"}
    return cli_process(*args, cwd=cwd, env=env)


def test_check_in_says_whether_each_eval_reaches_66_percent(project: Path) -> None:
    good = _cli("check-in", "tasks/good.yaml", "-m", "scripted:agent.yaml", "-k", "3",
                cwd=project)
    assert good.returncode == 0, good.stderr
    assert "good on scripted:agent.yaml: 100% (3/3) ok" in good.stdout
    bad = _cli("check-in", "tasks", "-m", "scripted:agent.yaml", "-k", "3", cwd=project)
    assert bad.returncode == 1
    assert "flaky on scripted:agent.yaml: 0% (0/3) below 66 %" in bad.stdout
    py = _cli("check-in", "test_new.py", "-m", "scripted:agent.yaml", "-k", "2", cwd=project)
    assert py.returncode == 0, py.stdout + py.stderr
    assert "test_new.py::test_new on scripted:agent.yaml: 100% (2/2) ok" in py.stdout
    assert not (project / ".trialrun").exists()  # a check-in is not history


def test_triage_shows_failing_transcripts_and_reruns(project: Path) -> None:
    store = str(project / "h.db")
    run = _cli("run", "tasks", "-m", "scripted:agent.yaml", "-k", "2", "--store", store,
               cwd=project)
    assert run.returncode == 0, run.stderr
    done = _cli("triage", "flaky", "-k", "2", "--store", store, cwd=project)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "flaky: 2 latest failing trial(s)" in out
    assert "no idea" in out and "contains" in out  # the transcript and its verdicts
    assert "flaky on scripted:agent.yaml: 0% (0/2) below 66 %" in out
    missing = _cli("triage", "nope", "--store", store, cwd=project)
    assert missing.returncode == 2 and "nope: not in the history" in missing.stderr


def test_lint_flags_always_passes_without_a_promotion(project: Path) -> None:
    store = str(project / "h.db")
    first = _cli("lint", "tasks", "test_new.py", "--store", store, cwd=project)
    assert first.returncode == 1
    lines = first.stdout.splitlines()
    assert any(line.startswith("test_new.py:4: test_new: new eval created as ALWAYS_PASSES")
               for line in lines), lines
    assert any("flaky: new eval created as ALWAYS_PASSES" in line for line in lines)
    assert not any(": good:" in line for line in lines)  # the suite default, not written
    _cli("run", "tasks", "-m", "scripted:agent.yaml", "-k", "1", "--store", store, cwd=project)
    second = _cli("lint", "tasks", "--store", store, cwd=project)
    assert "flaky: ALWAYS_PASSES with no promotion record" in second.stdout
    with HistoryStore.open(store) as history:
        history.record_policy_change(action="promote", test_id="flaky", kind="task",
                                     source=None, from_policy="USUALLY_PASSES",
                                     to_policy="ALWAYS_PASSES", models=[], reason="test")
    clean = _cli("lint", "tasks", "--store", store, cwd=project)
    assert clean.returncode == 0, clean.stdout


def test_check_in_measures_every_trial_with_early_stop_configured(project: Path) -> None:
    """A check-in measures a success rate: early stop (here on for every task) must not cut
    a failing eval's trials short (0/1 would read as a measured rate)."""
    (project / "trialrun.toml").write_text("[run]\nearly_stop = true\n")
    found = measure("tasks", ["scripted:agent.yaml"], 3)
    assert sorted((m.test_id, m.solved, m.trials) for m in found) == [
        ("flaky", 0, 3), ("good", 3, 3)]
