"""A task's workspace image writes the same tree `Workspace.create` copies, faster."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.errors import InfraError
from trialrun.sandbox import Workspace, WorkspaceImage, WorkspaceImages
from trialrun.tasks import Task


def _task(tmp: Path, environment: dict | None = None, fixture: str | None = "vault") -> Task:
    task = Task.model_validate({
        "task_id": "image.task_1", "suite": "golden", "description": "d",
        "inputs": {"prompt": "p"}, "graders": [{"type": "fileExists", "path": "a.md"}],
        "tracked_metrics": ["pass^k"], "environment": environment or {},
    })
    root = tmp / "fixtures"
    task.set_provenance(tmp / "task.yaml", "native",
                        fixture_path=root / fixture if fixture else None, fixtures_root=root)
    return task


def _tree(root: Path) -> dict[str, tuple]:
    """Every entry under root: folders, and files with their bytes, mode and mtime."""
    out: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st_ = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISDIR(st_.st_mode):
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(st_.st_mode), st_.st_mtime_ns)
    return out


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    vault = tmp_path / "fixtures" / "vault"
    (vault / "notes" / "deep").mkdir(parents=True)
    (vault / "a.md").write_text("---\ntitle: A\n---\nbody\n")
    (vault / "notes" / "b.md").write_bytes(b"\x00binary\xff")
    (vault / "notes" / "deep" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (vault / "notes" / "deep" / "run.sh").chmod(0o755)
    (vault / "empty").mkdir()
    (vault / "linked.md").symlink_to(vault / "a.md")
    (tmp_path / "fixtures" / "_seed").mkdir()
    (tmp_path / "fixtures" / "_seed" / "AGENTS.md").write_text("rules\n")
    return tmp_path


@pytest.mark.parametrize("environment", [
    {},
    {"fixture_dest": "eval-scratch/vault"},
    {"setup": [{"path": "docs/AGENTS.md", "from": "_seed/AGENTS.md"}]},
    {"sandbox": "none"},
])
def test_image_writes_what_the_copy_makes(fixtures: Path, environment: dict) -> None:
    task = _task(fixtures, environment)
    plain = Workspace.create(task, parent=fixtures / "plain")
    image = WorkspaceImage.capture(task, fixtures / "scratch")
    assert image is not None
    fast = image.create((fixtures / "fast").resolve(), "p-")
    try:
        assert _tree(fast.path) == _tree(plain.path)
        assert fast.initial == plain.snapshot() == fast.snapshot()
        assert fast.initial_snapshot() is fast.initial
        assert plain.initial is None and plain.initial_snapshot() == plain.snapshot()
    finally:
        plain.remove()
        fast.remove()
    assert list((fixtures / "scratch").iterdir()) == []  # the capture cleaned up


def test_each_workspace_is_fresh_and_separate(fixtures: Path) -> None:
    images = WorkspaceImages()
    task = _task(fixtures)
    one = images.create(task, fixtures / "runs")
    two = images.create(task, fixtures / "runs")
    try:
        assert one.path != two.path and one.path.parent == (fixtures / "runs").resolve()
        assert one.path.name.startswith("trialrun-image.task_1-")
        (one.path / "a.md").write_text("changed\n")
        (one.path / "new.md").write_text("new\n")
        assert (two.path / "a.md").read_text().startswith("---")  # nothing shared
        assert not (two.path / "new.md").exists()
        assert two.initial is not None and two.initial == two.snapshot()
        assert one.initial == two.initial and one.initial != one.snapshot()
    finally:
        one.remove()
        two.remove()


def test_large_fixture_is_copied_plainly(fixtures: Path) -> None:
    task = _task(fixtures)
    assert WorkspaceImage.capture(task, fixtures / "s", max_bytes=10) is None
    images = WorkspaceImages(budget=10)
    ws = images.create(task, fixtures / "runs")
    try:
        assert ws.initial is None  # the plain copy: snapshot taken, not known
        assert (ws.path / "notes" / "deep" / "run.sh").read_text().endswith("echo hi\n")
    finally:
        ws.remove()


def test_budget_is_shared_by_the_run(fixtures: Path) -> None:
    (fixtures / "fixtures" / "other").mkdir()
    (fixtures / "fixtures" / "other" / "o.md").write_text("o" * 100)
    first = _task(fixtures)
    size = WorkspaceImage.capture(first, fixtures / "s").size  # type: ignore[union-attr]
    images = WorkspaceImages(budget=size + 50)
    a = images.create(first, fixtures / "runs")
    b = images.create(_task(fixtures, fixture="other"), fixtures / "runs")  # 100 > 50 left
    try:
        assert a.initial is not None and b.initial is None
        assert (b.path / "o.md").read_text() == "o" * 100
    finally:
        a.remove()
        b.remove()


def test_a_broken_fixture_fails_each_trial_with_the_plain_message(fixtures: Path) -> None:
    task = _task(fixtures, fixture="missing")
    with pytest.raises(InfraError) as plain:
        Workspace.create(task, parent=fixtures / "plain")
    images = WorkspaceImages()
    for _ in range(2):
        with pytest.raises(InfraError) as fast:
            images.create(task, fixtures / "runs")
        assert str(fast.value) == str(plain.value)


def test_a_parent_removed_mid_run_is_made_again(fixtures: Path) -> None:
    images = WorkspaceImages()
    task = _task(fixtures)
    images.create(task, fixtures / "runs").remove()
    (fixtures / "runs").rmdir()
    ws = images.create(task, fixtures / "runs")
    assert ws.initial == ws.snapshot()
    ws.remove()


_names = st.text(alphabet="abcxyz-_.0", min_size=1, max_size=6).filter(
    lambda n: n not in (".", ".."))


_contents = st.tuples(st.binary(max_size=64), st.sampled_from([0o644, 0o600, 0o755]))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.dictionaries(st.lists(_names, min_size=1, max_size=3).map(tuple), _contents,
                             max_size=8))
def test_any_fixture_tree_round_trips(tmp_path_factory: pytest.TempPathFactory,
                                      files: dict[tuple[str, ...], tuple[bytes, int]]) -> None:
    tmp = tmp_path_factory.mktemp("prop")
    vault = tmp / "fixtures" / "vault"
    vault.mkdir(parents=True)
    for parts, (data, mode) in files.items():
        path = vault.joinpath(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue  # a name used both as a file and a folder: keep the first
        path.chmod(mode)
    task = _task(tmp)
    plain = Workspace.create(task, parent=tmp / "plain")
    fast = WorkspaceImages().create(task, tmp / "fast")
    assert _tree(fast.path) == _tree(plain.path)
    assert fast.initial == plain.snapshot()
