"""A finished trial's workspace is reused only when it is exactly what the image makes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.sandbox import Workspace, WorkspaceImages
from trialrun.sandbox._pool import mark_tree, untouched
from trialrun.tasks import Task


def _task(tmp: Path, task_id: str = "pool.task_1", environment: dict | None = None) -> Task:
    task = Task.model_validate({
        "task_id": task_id, "suite": "golden", "description": "d",
        "inputs": {"prompt": "p"}, "graders": [{"type": "fileExists", "path": "a.md"}],
        "tracked_metrics": ["pass^k"], "environment": environment or {},
    })
    root = tmp / "fixtures"
    task.set_provenance(tmp / "task.yaml", "native", fixture_path=root / "vault",
                        fixtures_root=root)
    return task


def _tree(root: Path) -> dict[str, tuple]:
    """Every entry under root (root included): type, mode, and a file's bytes and mtime."""
    out: dict[str, tuple] = {"": ("dir", stat.S_IMODE(root.lstat().st_mode))}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st_ = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISDIR(st_.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st_.st_mode))
            elif stat.S_ISLNK(st_.st_mode):
                out[rel] = ("link", os.readlink(path))
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(st_.st_mode),
                            st_.st_mtime_ns, st_.st_nlink)
    return out


def _make_fixture(tmp: Path) -> None:
    vault = tmp / "fixtures" / "vault"
    (vault / "notes" / "deep").mkdir(parents=True, exist_ok=True)
    (vault / "a.md").write_text("---\ntitle: A\n---\nbody\n")
    (vault / "notes" / "b.md").write_bytes(b"\x00binary\xff")
    (vault / "notes" / "deep" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (vault / "notes" / "deep" / "run.sh").chmod(0o755)
    (vault / "empty").mkdir(exist_ok=True)


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    _make_fixture(tmp_path)
    return tmp_path


def test_an_untouched_workspace_is_reused_under_a_new_name(fixtures: Path) -> None:
    images = WorkspaceImages()
    first = images.create(_task(fixtures), fixtures / "runs")
    (first.path / "a.md").read_text()  # reading is not a change
    inode = first.path.stat().st_ino
    assert images.give_back(first)
    second = images.create(_task(fixtures, "pool.task_2"), fixtures / "runs")
    try:
        assert second.path.stat().st_ino == inode  # the same folder, not a new one
        assert second.path != first.path and not first.path.exists()  # renamed away
        assert second.path.name.startswith("trialrun-pool.task_2-")
        assert second.initial == second.snapshot()
        plain = Workspace.create(_task(fixtures), parent=fixtures / "plain")
        assert _tree(second.path) == _tree(plain.path)
    finally:
        second.remove()


def test_a_changed_workspace_is_removed_not_reused(fixtures: Path) -> None:
    images = WorkspaceImages()
    first = images.create(_task(fixtures), fixtures / "runs")
    held = os.open(first.path, os.O_PATH)  # keeps the inode (and its number) alive
    (first.path / "notes" / "b.md").write_bytes(b"changed")
    assert images.give_back(first)
    second = images.create(_task(fixtures), fixtures / "runs")
    assert os.fstat(held).st_nlink == 0  # the changed folder was removed
    assert second.path.stat().st_ino != os.fstat(held).st_ino
    os.close(held)
    assert (second.path / "notes" / "b.md").read_bytes() == b"\x00binary\xff"
    assert [p.name for p in (fixtures / "runs").iterdir()] == [second.path.name]
    second.remove()


def test_a_plain_workspace_is_not_taken_back(fixtures: Path) -> None:
    images = WorkspaceImages(budget=10)  # too small: the plain copy
    ws = images.create(_task(fixtures), fixtures / "runs")
    assert not images.give_back(ws)
    assert not images.give_back(Workspace.create(_task(fixtures), parent=fixtures / "p"))
    ws.remove()


def test_a_same_size_rewrite_with_its_times_put_back_is_seen(fixtures: Path) -> None:
    """The kernel's change time is coarse (a write in the same tick keeps it): the bytes
    are compared too. Marked after the rewrite, only the bytes tell."""
    ws = Workspace.create(_task(fixtures), parent=fixtures / "runs")
    note = ws.path / "a.md"
    original = note.read_bytes()
    rels = ["a.md", "empty", "notes", "notes/b.md", "notes/deep", "notes/deep/run.sh"]
    data = {"a.md": original, "notes/b.md": b"\x00binary\xff",
            "notes/deep/run.sh": b"#!/bin/sh\necho hi\n"}
    assert untouched(os.fspath(ws.path), mark_tree(os.fspath(ws.path), rels), data)
    times = note.stat()
    note.write_bytes(original.upper())
    os.utime(note, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert not untouched(os.fspath(ws.path), mark_tree(os.fspath(ws.path), rels), data)
    ws.remove()


def test_a_hard_link_out_of_the_workspace_is_not_reused(fixtures: Path) -> None:
    images = WorkspaceImages()
    first = images.create(_task(fixtures), fixtures / "runs")
    os.link(first.path / "a.md", fixtures / "outside.md")  # a later write would reach it
    assert images.give_back(first)
    second = images.create(_task(fixtures), fixtures / "runs")
    assert (second.path / "a.md").stat().st_nlink == 1
    second.remove()


def test_idle_workspaces_hold_at_most_the_idle_budget(fixtures: Path) -> None:
    size = sum(len(p.read_bytes()) for p in (fixtures / "fixtures" / "vault").rglob("*")
               if p.is_file())
    images = WorkspaceImages(idle_bytes=size)  # room for one idle copy
    one, two = (images.create(_task(fixtures), fixtures / "runs") for _ in range(2))
    assert images.give_back(one)
    assert not images.give_back(two)  # no room: the caller removes it
    two.remove()
    taken = images.create(_task(fixtures), fixtures / "runs")  # frees the room again
    assert images.give_back(taken)


_NAMES = ["a.md", "notes", "notes/b.md", "notes/deep", "notes/deep/run.sh", "empty",
          "new.md", "empty/x", "notes/c"]

_op = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(_NAMES), st.binary(max_size=24)),
    st.tuples(st.just("append"), st.sampled_from(_NAMES), st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("delete"), st.sampled_from(_NAMES)),
    st.tuples(st.just("rename"), st.sampled_from(_NAMES), st.sampled_from(_NAMES)),
    st.tuples(st.just("chmod"), st.sampled_from(["", *_NAMES]),
              st.sampled_from([0o000, 0o444, 0o500, 0o600, 0o644, 0o700, 0o755, 0o777])),
    st.tuples(st.just("mkdir"), st.sampled_from(_NAMES)),
    st.tuples(st.just("symlink"), st.sampled_from(_NAMES), st.sampled_from(["a.md", "/etc"])),
    st.tuples(st.just("hardlink"), st.sampled_from(_NAMES)),
    st.tuples(st.just("utime"), st.sampled_from(["", *_NAMES]), st.integers(0, 2**31)),
    st.tuples(st.just("truncate"), st.sampled_from(_NAMES)),
)


def _apply(root: Path, op: tuple, outside: Path) -> None:
    kind, name, *rest = op
    path = root / name if name else root
    try:
        if kind == "write":
            path.write_bytes(rest[0])
        elif kind == "append":
            with path.open("ab") as fh:
                fh.write(rest[0])
        elif kind == "delete":
            if path.is_dir() and not path.is_symlink():
                for sub in sorted(path.rglob("*"), reverse=True):
                    sub.rmdir() if sub.is_dir() and not sub.is_symlink() else sub.unlink()
                path.rmdir()
            else:
                path.unlink()
        elif kind == "rename":
            path.rename(root / rest[0])
        elif kind == "chmod":
            os.chmod(path, rest[0], follow_symlinks=False)
        elif kind == "mkdir":
            path.mkdir()
        elif kind == "symlink":
            path.symlink_to(rest[0])
        elif kind == "hardlink":
            os.link(path, outside / f"link-{len(list(outside.iterdir()))}",
                    follow_symlinks=False)
        elif kind == "utime":
            os.utime(path, (rest[0], rest[0]), follow_symlinks=False)
        elif kind == "truncate":
            os.truncate(path, 0)
    except (OSError, NotImplementedError):
        pass  # what a real agent's failing call leaves: nothing, or part of it


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(trials=st.lists(st.tuples(st.lists(_op, max_size=6), st.lists(_op, max_size=2)),
                       min_size=1, max_size=4))
def test_no_trial_sees_another_trials_writes(
    tmp_path_factory: pytest.TempPathFactory,
    trials: list[tuple[list[tuple], list[tuple]]],
) -> None:
    """Each trial changes its workspace at random (and a writer left behind changes it
    again through its old path after it was handed back); the next trial's workspace
    equals a fresh copy of the fixture, entry for entry."""
    tmp = tmp_path_factory.mktemp("pool")
    _make_fixture(tmp)
    outside = tmp / "outside"
    outside.mkdir()
    task = _task(tmp)
    expected = _tree(Workspace.create(task, parent=tmp / "plain").path)
    images = WorkspaceImages()
    ws = images.create(task, tmp / "runs")
    for during, after in trials:
        assert _tree(ws.path) == expected
        assert ws.snapshot() == ws.initial
        for op in during:
            _apply(ws.path, op, outside)
        old = ws.path
        if not images.give_back(ws):
            ws.remove()
        for op in after:
            _apply(old, op, outside)
        ws = images.create(task, tmp / "runs")
    assert _tree(ws.path) == expected
    assert ws.snapshot() == ws.initial
    ws.remove()
    leftovers = list((tmp / "runs").iterdir())
    assert len(leftovers) <= 1  # the one workspace still idle, if it was untouched
