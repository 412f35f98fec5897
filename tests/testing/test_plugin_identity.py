"""A pytest eval's history id does not move with pytest's rootdir: it is the file's path
from the project (the folder of the nearest trialrun.toml, else the git checkout's top),
so two sessions started with different `--rootdir` record one test, not two."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trialrun
from trialrun.history import HistoryStore
from trialrun.testing._identity import history_test_id

SRC = str(Path(trialrun.__file__).resolve().parents[1])

EVAL = '''\
from trialrun.testing import eval_test


@eval_test("ALWAYS_PASSES", prompt="?")
def test_says_yes(result):
    assert result == "yes"
'''


def _pytest(project: Path, rootdir: Path, store: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "evals/test_e.py", "-q", "-p", "no:cacheprovider",
         "-p", "no:hypothesispytest", "--rootdir", str(rootdir),
         "--eval-model", "scripted:agent.yaml", "--eval-store", str(store)],
        cwd=project, capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


@pytest.mark.parametrize("project_marker", ["trialrun.toml", "git"])
def test_the_test_id_is_the_same_from_any_rootdir(tmp_path: Path, project_marker: str) -> None:
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "test_e.py").write_text(EVAL)
    (project / "agent.yaml").write_text('tasks:\n  test_says_yes: [{content: "yes"}]\n')
    if project_marker == "git":
        _git(project, "init", "-q")
    else:
        (project / "trialrun.toml").write_text("[history]\nrecord = true\n")
    store = tmp_path / "h.db"
    _pytest(project, project, store)
    _pytest(project, project / "evals", store)  # what a conftest or ini there would do
    with HistoryStore.open(str(store)) as history:
        runs = history.runs()
    assert len(runs) == 2
    assert [[o.test_id for o in run.outcomes] for run in runs] == [
        ["evals/test_e.py::test_says_yes"], ["evals/test_e.py::test_says_yes"]]


def test_without_a_project_the_id_is_pytests_node_id(tmp_path: Path) -> None:
    project = tmp_path / "loose"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "test_e.py").write_text(EVAL)
    (project / "agent.yaml").write_text('tasks:\n  test_says_yes: [{content: "yes"}]\n')
    store = tmp_path / "h.db"
    _pytest(project, project, store)
    with HistoryStore.open(str(store)) as history:
        (run,) = history.runs()
    assert [o.test_id for o in run.outcomes] == ["evals/test_e.py::test_says_yes"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), min_size=1,
                max_size=4, unique=True),
       st.integers(min_value=0, max_value=4),
       st.from_regex(r"[a-z0-9:@/.\-]{0,20}", fullmatch=True))
def test_any_rootdir_between_the_project_and_the_file_gives_one_id(
    folders: list[str], depth: int, param: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp).resolve() / "project"
        file = project.joinpath(*folders) / "test_e.py"
        file.parent.mkdir(parents=True)
        (project / "trialrun.toml").write_text("")
        rootdir = project.joinpath(*folders[: min(depth, len(folders))])
        nodeid = f"{file.relative_to(rootdir).as_posix()}::test_x[{param}-0]"
        expected = "/".join([*folders, "test_e.py"]) + "::test_x"
        assert history_test_id(file, nodeid) == expected
