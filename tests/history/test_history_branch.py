"""Each run records its git branch (run.json and the history), and promotion, demotion
and `trialrun history` read the main branch's runs: a feature branch's nightlies promote
nothing ("the last 7 nightly runs on the main branch"). Runs of unknown branch (outside
git, or recorded before branches were) count as the main branch's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_support import cli_process
from trialrun.core import git_branch
from trialrun.history import (
    HistoryStore,
    Outcome,
    RunRecord,
    TrialRecord,
    build_report,
    demotion_candidates,
    promotion_candidates,
)

MODEL = "scripted:agent.yaml"
TASK = """\
task_id: read-note
suite: golden
description: d
inputs: {prompt: What is in note.md?}
policy: USUALLY_PASSES
environment: {fixture: basic}
graders: [{type: contains, value: pineapple}]
tracked_metrics: [pass^k]
"""
AGENT = """\
tasks:
  read-note:
    - tool_calls: [{name: read_file, arguments: {path: note.md}}]
    - content: It says pineapple.
"""


def _git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True, capture_output=True, text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tasks" / "fixtures" / "basic").mkdir(parents=True)
    (tmp_path / "tasks" / "fixtures" / "basic" / "note.md").write_text("pineapple\n")
    (tmp_path / "tasks" / "note.yaml").write_text(TASK)
    (tmp_path / "agent.yaml").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_run_records_its_branch_in_run_json_and_the_history(project: Path) -> None:
    _git(project, "init", "-q", "-b", "feature-x")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "tasks")
    store = str(project / "h.db")
    done = cli_process("run", "tasks", "-m", MODEL, "-k", "1", "--store", store, "--out", "results",
                cwd=project)
    assert done.returncode == 0, done.stderr
    (run_dir,) = (project / "results").iterdir()
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["git_branch"] == "feature-x"
    assert manifest["git_sha"] == _git(project, "rev-parse", "HEAD")
    with HistoryStore.open(store) as history:
        (recorded,) = history.runs(branch=None)
    assert recorded.git_branch == "feature-x"


def test_a_detached_head_takes_the_ci_services_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert git_branch(tmp_path) is None  # not a checkout
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "f").write_text("x")
    _git(tmp_path, "add", "f")
    _git(tmp_path, "commit", "-q", "-m", "one")
    assert git_branch(tmp_path) == "main"
    _git(tmp_path, "checkout", "-q", "--detach")
    assert git_branch(tmp_path) is None  # detached, and no CI variable says
    monkeypatch.setenv("GITHUB_REF_NAME", "v1.2")
    monkeypatch.setenv("GITHUB_REF_TYPE", "tag")
    assert git_branch(tmp_path) is None  # a tag is not a branch
    monkeypatch.setenv("GITHUB_REF_TYPE", "branch")
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    assert git_branch(tmp_path) == "main"
    monkeypatch.setenv("GITHUB_HEAD_REF", "fix-login")  # a pull request's own branch
    assert git_branch(tmp_path) == "fix-login"
    monkeypatch.setenv("GITHUB_HEAD_REF", "")
    monkeypatch.delenv("GITHUB_REF_NAME")
    monkeypatch.setenv("CI_COMMIT_BRANCH", "develop")  # GitLab
    assert git_branch(tmp_path) == "develop"


def _nightly(i: int, branch: str | None, solved: int, source: str, trigger: str = "nightly",
             policy: str = "USUALLY_PASSES") -> RunRecord:
    return RunRecord(
        f"{trigger}-{branch}-{i}", f"2026-11-{i + 1:02d}T03:00:00Z", trigger, models=[MODEL],
        git_branch=branch,
        outcomes=[Outcome("read-note", MODEL, source=source, policy=policy, k=3,
                          trials=[TrialRecord(t, "solved" if t < solved else "failed")
                                  for t in range(3)])],
    )


def test_promotion_reads_only_the_main_branchs_nightlies(project: Path, store_url: str) -> None:
    source = str(project / "tasks" / "note.yaml")
    with HistoryStore.open(store_url) as store:
        for i in range(10):  # a feature branch solves it every night; main does not
            store.record(_nightly(i, "feature", 3, source))
        for i in range(10, 20):
            store.record(_nightly(i, "main", 2, source))
        found, notes = promotion_candidates(store, branch="main")
        assert found == []
        assert notes == ["read-note: stays USUALLY_PASSES (scripted:agent.yaml: below 100 % in "
                         "the last 7 runs)"]
        (feature,), _ = promotion_candidates(store, branch="feature")
        assert feature.reason == ("≥ 10 nightly runs per model on branch feature, 100 % of "
                                  "trials in the last 7")
    dry = cli_process("promote", "--dry-run", "--store", store_url, cwd=project)
    assert dry.returncode == 0, dry.stderr
    assert "nothing to promote" in dry.stdout
    other = cli_process("promote", "--dry-run", "--branch", "feature", "--store", store_url,
                 cwd=project)
    assert "would promote read-note: USUALLY_PASSES → ALWAYS_PASSES" in other.stdout, other.stderr
    (project / "trialrun.toml").write_text('[history]\nbranch = "feature"\n')
    configured = cli_process("promote", "--dry-run", "--store", store_url, cwd=project)
    assert "would promote read-note" in configured.stdout, configured.stderr
    (project / "trialrun.toml").write_text("[history]\nbranch = 3\n")
    bad = cli_process("promote", "--dry-run", "--store", store_url, cwd=project)
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith('trialrun.toml: [history] branch must be a branch name, '
                                       'e.g. branch = "main"')


def test_only_other_branches_say_where_the_runs_are(project: Path, store_url: str) -> None:
    source = str(project / "tasks" / "note.yaml")
    with HistoryStore.open(store_url) as store:
        for i in range(10):
            store.record(_nightly(i, "master", 3, source))
        found, notes = promotion_candidates(store, branch="main")
        assert found == []
        assert notes[0] == ("no nightly runs on branch main; runs on: master (10) (set [history] "
                            "branch in trialrun.toml, or pass --branch NAME / --all-branches)")
        (everywhere,), _ = promotion_candidates(store, branch=None)
        assert everywhere.test_id == "read-note"


def test_runs_of_unknown_branch_count_as_main(project: Path, store_url: str) -> None:
    source = str(project / "tasks" / "note.yaml")
    with HistoryStore.open(store_url) as store:
        for i in range(10):  # recorded outside git, or before branches were recorded
            store.record(_nightly(i, None, 3, source))
        (found,), _ = promotion_candidates(store, branch="main")
        assert found.test_id == "read-note"


def test_ci_failures_on_a_feature_branch_demote_nothing(project: Path, store_url: str) -> None:
    source = str(project / "tasks" / "note.yaml")
    with HistoryStore.open(store_url) as store:
        store.record(_nightly(0, "main", 3, source, trigger="ci", policy="ALWAYS_PASSES"))
        store.record(_nightly(1, "wip", 0, source, trigger="ci", policy="ALWAYS_PASSES"))
        assert demotion_candidates(store, branch="main") == []
        (demoted,) = demotion_candidates(store, branch="wip")
        assert demoted.reason == ("failed in CI within its last 7 CI runs on branch wip on "
                                  "scripted:agent.yaml")
        (anywhere,) = demotion_candidates(store, branch=None)
        assert anywhere.test_id == "read-note"


def test_the_history_report_shows_the_main_branch(project: Path, store_url: str) -> None:
    source = str(project / "tasks" / "note.yaml")
    with HistoryStore.open(store_url) as store:
        store.record(_nightly(0, "main", 3, source))
        store.record(_nightly(1, "feature", 0, source))
        store.record(_nightly(2, None, 2, source))
        report = build_report(store, branch="main")
        assert [r.run_id for r in report.runs] == ["nightly-main-0", "nightly-None-2"]
        assert [r.run_id for r in build_report(store, branch=None).runs] == [
            "nightly-main-0", "nightly-feature-1", "nightly-None-2"]
    shown = cli_process("history", "--store", store_url, cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "## Eval history (2 runs; last 7, branch main)" in shown.stdout
    assert "0% (0/3)" not in shown.stdout  # the feature branch's run
    every = cli_process("history", "--all-branches", "--store", store_url, cwd=project)
    assert "## Eval history (3 runs; last 7)" in every.stdout, every.stderr
    both = cli_process(
        "history", "--all-branches", "--branch", "x", "--store", store_url, cwd=project
    )
    assert both.returncode == 2
    assert "--branch and --all-branches: pass one of them" in both.stderr
