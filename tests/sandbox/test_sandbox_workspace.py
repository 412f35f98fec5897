"""Workspace lifecycle: fixture copy (symlinks followed), setup seeds, snapshots, diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from trialrun.errors import InfraError
from trialrun.sandbox import Workspace, WorkspaceDiff, diff_snapshots, snapshot_dir
from trialrun.tasks import Task


def _task(tmp: Path, environment: dict | None = None, fixture: bool = True) -> Task:
    task = Task.model_validate(
        {
            "task_id": "demo-task-1",
            "suite": "golden",
            "description": "d",
            "inputs": {"prompt": "p"},
            "graders": [{"type": "fileExists", "path": "a.md"}],
            "tracked_metrics": ["pass^k"],
            "environment": environment or {},
        }
    )
    root = tmp / "fixtures"
    task.set_provenance(
        tmp / "task.yaml",
        "native",
        fixture_path=root / "vault" if fixture else None,
        fixtures_root=root,
    )
    return task


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "shared.md").write_text("shared content\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "inner.md").write_text("inner\n")
    vault = tmp_path / "fixtures" / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "a.md").write_text("---\ntitle: A\n---\nbody\n")
    (vault / "notes" / "b.md").write_text("B\n")
    (vault / "linked.md").symlink_to(outside / "shared.md")
    (vault / "linked_dir").symlink_to(outside / "dir")
    seed = tmp_path / "fixtures" / "_seed" / "x"
    seed.mkdir(parents=True)
    (seed / "AGENTS.md").write_text("agent rules\n")
    return tmp_path


def test_create_copies_fixture_following_symlinks(fixtures: Path) -> None:
    ws = Workspace.create(_task(fixtures), parent=fixtures / "runs")
    try:
        assert ws.path.is_dir() and ws.path.parent == (fixtures / "runs").resolve()
        assert (ws.path / "a.md").read_text().startswith("---")
        linked = ws.path / "linked.md"
        assert not linked.is_symlink() and linked.read_text() == "shared content\n"
        inner = ws.path / "linked_dir" / "inner.md"
        assert not (ws.path / "linked_dir").is_symlink() and inner.read_text() == "inner\n"
        snap = ws.snapshot()
        assert set(snap) == {"a.md", "notes/b.md", "linked.md", "linked_dir/inner.md"}
        assert all(len(h) == 64 for h in snap.values())
    finally:
        ws.remove()
    assert not ws.path.exists()
    ws.remove()  # idempotent


def test_fixture_dest_and_setup_seeds(fixtures: Path) -> None:
    env = {
        "fixture_dest": "eval-scratch",
        "setup": [
            {"path": "AGENTS.md", "from": "_seed/x/AGENTS.md"},
            {"path": "s/x", "from": "_seed/x"},
        ],
    }
    with Workspace.create(_task(fixtures, env)) as ws:
        assert (ws.path / "eval-scratch" / "a.md").is_file()
        assert (ws.path / "eval-scratch" / "notes" / "b.md").read_text() == "B\n"
        assert (ws.path / "AGENTS.md").read_text() == "agent rules\n"
        assert (ws.path / "s" / "x" / "AGENTS.md").is_file()
        assert not (ws.path / "a.md").exists()
    assert not ws.path.exists()


def test_sandbox_none_is_an_empty_dir(fixtures: Path) -> None:
    ws = Workspace.create(_task(fixtures, {"sandbox": "none"}))
    try:
        assert ws.path.is_dir() and ws.snapshot() == {}
    finally:
        ws.remove()


def test_no_fixture_gives_empty_dir(fixtures: Path) -> None:
    with Workspace.create(_task(fixtures, fixture=False)) as ws:
        assert list(ws.path.iterdir()) == []


def test_missing_setup_source_is_infra_error(fixtures: Path) -> None:
    env = {"setup": [{"path": "AGENTS.md", "from": "_seed/nope.md"}]}
    parent = fixtures / "runs"
    with pytest.raises(InfraError, match="nope.md"):
        Workspace.create(_task(fixtures, env), parent=parent)
    assert list(parent.iterdir()) == []  # nothing left behind


def test_setup_path_escaping_is_infra_error(fixtures: Path) -> None:
    env = {"setup": [{"path": "../evil.md", "from": "_seed/x/AGENTS.md"}]}
    with pytest.raises(InfraError, match="outside"):
        Workspace.create(_task(fixtures, env), parent=fixtures / "runs")
    assert not (fixtures / "runs" / "evil.md").exists()


def test_broken_fixture_symlink_is_infra_error(fixtures: Path) -> None:
    (fixtures / "fixtures" / "vault" / "broken.md").symlink_to(fixtures / "missing.md")
    with pytest.raises(InfraError, match="broken symlink"):
        Workspace.create(_task(fixtures), parent=fixtures / "runs")


def test_fixture_symlink_loop_is_infra_error(fixtures: Path) -> None:
    (fixtures / "fixtures" / "vault" / "notes" / "loop").symlink_to(fixtures / "fixtures" / "vault")
    with pytest.raises(InfraError, match="loop"):
        Workspace.create(_task(fixtures), parent=fixtures / "runs")


def test_missing_fixture_folder_is_infra_error(fixtures: Path) -> None:
    task = _task(fixtures)
    task.set_provenance(None, fixture_path=fixtures / "nope", fixtures_root=fixtures)
    with pytest.raises(InfraError, match="not found"):
        Workspace.create(task, parent=fixtures / "runs")


def test_snapshot_diff(fixtures: Path) -> None:
    with Workspace.create(_task(fixtures)) as ws:
        before = ws.snapshot()
        (ws.path / "a.md").write_text("changed")
        (ws.path / "notes" / "b.md").unlink()
        (ws.path / "new" / "deep").mkdir(parents=True)
        (ws.path / "new" / "deep" / "c.md").write_text("c")
        (ws.path / "z.md").write_text("z")
        after = ws.snapshot()
    diff = diff_snapshots(before, after)
    assert diff == WorkspaceDiff(
        created=["new/deep/c.md", "z.md"], modified=["a.md"], deleted=["notes/b.md"]
    )
    assert diff.changed
    assert not diff_snapshots(before, before).changed


def test_snapshot_does_not_follow_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "out"
    outside.mkdir()
    (outside / "big.md").write_text("x")
    root = tmp_path / "root"
    root.mkdir()
    (root / "dirlink").symlink_to(outside)
    (root / "filelink").symlink_to(outside / "big.md")
    snap = snapshot_dir(root)
    assert set(snap) == {"dirlink", "filelink"}
    (outside / "big.md").write_text("changed outside")
    assert snapshot_dir(root) == snap
