"""A run reuses a trial's workspace for the next trial only when the trial left it as
the fixture made it; a trial that wrote gets a fresh one, and no trial sees another's
writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trialrun import run as run_eval
from trialrun.graders import GRADERS, GraderConfig, grader
from trialrun.runner._inflight import INFLIGHT
from trialrun.tasks import Task


class _HoldsWorkspaceConfig(GraderConfig):
    pass


HELD: list[tuple[str, int, list[str]]] = []  # (task, an O_PATH descriptor, its entries)


def _holds_workspace(config: _HoldsWorkspaceConfig, trial: object) -> tuple[bool, dict]:
    """Keeps the workspace folder open (so its inode number can't be handed to another
    folder) and notes what it held at grading time."""
    workspace = trial.workspace  # type: ignore[attr-defined]
    names = sorted(os.listdir(workspace))
    HELD.append((trial.task_id, os.open(workspace, os.O_PATH), names))  # type: ignore[attr-defined]
    return True, {}


@pytest.fixture(autouse=True)
def _holding_grader():
    grader("testHoldsWorkspace", _HoldsWorkspaceConfig)(_holds_workspace)
    HELD.clear()
    yield
    GRADERS._items.pop("testHoldsWorkspace", None)
    for _, fd, _ in HELD:
        os.close(fd)


def _task(tmp: Path, task_id: str) -> Task:
    task = Task.model_validate({
        "task_id": task_id, "suite": "golden", "description": "d",
        "inputs": {"prompt": "p"}, "graders": [{"type": "testHoldsWorkspace"}],
        "tracked_metrics": ["pass^k"],
    })
    task.set_provenance(tmp / "task.yaml", "native", fixture_path=tmp / "fixtures" / "vault",
                        fixtures_root=tmp / "fixtures")
    return task


def test_untouched_workspaces_are_reused_written_ones_are_not(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "vault").mkdir(parents=True)
    (tmp_path / "fixtures" / "vault" / "note.md").write_text("the note\n")
    script = tmp_path / "s.yaml"
    script.write_text(
        "tasks:\n"
        "  reads:\n"
        "    - tool_calls: [{name: read_file, arguments: {path: note.md}}]\n"
        "    - content: done\n"
        "  writes:\n"
        "    - tool_calls: [{name: write_file, arguments: {path: new.md, content: x}}]\n"
        "    - content: done\n"
    )
    tasks = [_task(tmp_path, "reads"), _task(tmp_path, "writes")]
    outcome = run_eval(tasks, [f"scripted:{script}"], k=3, concurrency=1,
                       out=tmp_path / "o", handle_sigint=False)
    by_task: dict[str, list[tuple[int, list[str]]]] = {}
    for task_id, fd, names in HELD:
        by_task.setdefault(task_id, []).append((os.fstat(fd).st_ino, names))
    writes = by_task["writes"]
    assert [names for _, names in writes] == [["new.md", "note.md"]] * 3  # never the last one's
    assert len({ino for ino, _ in writes}) == 3  # each a fresh folder
    reads = by_task["reads"]
    assert [names for _, names in reads] == [["note.md"]] * 3
    assert len({ino for ino, _ in [*reads, *writes]}) < 6  # the untouched ones were reused
    assert not (outcome.path / INFLIGHT).exists()  # the idle ones removed with the rest
