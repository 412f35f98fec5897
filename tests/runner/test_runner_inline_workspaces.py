"""A small workspace is made on the event loop, not handed to an I/O thread.

The hand-off to an I/O thread costs more than the few system calls of a small workspace
(issue 30: ~25 context switches each on a busy loop). Removal stays on the I/O threads
(nobody waits for it; an unlink can wait on the file system's journal). Which thread makes
(`os.mkdir`) and removes (`shutil.rmtree`) each trial's workspace is read from Python's
audit events: the
first workspace built from a fixture is measured on an I/O thread, later ones from a small
fixture (of the same task or another) stay on the loop's thread; a workspace of many
files stays on the I/O threads.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

import trialrun

pytestmark = pytest.mark.timeout(120)

SEEN: list[tuple[str, str, int]] = []  # (event, path, thread id)
WATCHING = threading.Event()


def _audit(event: str, args: tuple[object, ...]) -> None:
    if WATCHING.is_set() and event in ("os.mkdir", "os.rename", "shutil.rmtree") and args:
        # a reused workspace (sandbox/_pool) is made by renaming an untouched one: its new name
        made = args[1] if event == "os.rename" else args[0]
        path = os.fsdecode(made) if isinstance(made, str | bytes) else str(made)
        if "trialrun-inline-" in path:
            SEEN.append((event, os.path.basename(path), threading.get_ident()))


sys.addaudithook(_audit)


def _suite(root: Path, files: dict[str, int], twins: tuple[str, ...] = ()) -> None:
    """One task per fixture: task `inline-<name>` whose fixture holds `count` notes; and
    task `inline-twin-<name>` on the same fixture for each name in `twins`."""
    script: dict[str, list[dict[str, object]]] = {}
    (root / "tasks").mkdir()
    for name, count in files.items():
        fixture = root / "fixtures" / name
        fixture.mkdir(parents=True)
        for i in range(count):
            (fixture / f"note-{i}.md").write_text(f"note {i}\n", encoding="utf-8")
    for task_id, name in [(f"inline-{n}", n) for n in files] + [
        (f"inline-twin-{n}", n) for n in twins
    ]:
        (root / "tasks" / f"{task_id}.json").write_text(json.dumps({
            "task_id": task_id, "suite": "golden", "description": "read a note",
            "inputs": {"prompt": "What does note-0.md say?"},
            "environment": {"fixture": name},
            "graders": [{"type": "contains", "value": "note 0"}],
            "tracked_metrics": ["pass^k"], "trials": {"k": 4},
        }), encoding="utf-8")
        script[task_id] = [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "note-0.md"}}]},
            {"content": "note 0"},
        ]
    (root / "script.json").write_text(json.dumps({"tasks": script}), encoding="utf-8")


def _on_threads(task: str, event: str) -> dict[str, set[int]]:
    """Each workspace of `task` (by folder name) → the threads that made (`os.mkdir`, or
    `os.rename` of a reused one) or removed (`shutil.rmtree`) it."""
    events = {"os.mkdir", "os.rename"} if event == "os.mkdir" else {event}
    out: dict[str, set[int]] = {}
    for seen, name, tid in SEEN:
        if seen in events and name.startswith(f"trialrun-{task}-"):
            out.setdefault(name, set()).add(tid)
    return out


def test_small_workspaces_stay_on_the_loop_large_ones_on_io_threads(tmp_path: Path) -> None:
    _suite(tmp_path, {"small": 1, "large": 80}, twins=("small",))
    SEEN.clear()
    WATCHING.set()
    try:
        run = trialrun.run([tmp_path / "tasks"], [f"scripted:{tmp_path / 'script.json'}"],
                           out=tmp_path / "results", concurrency=1)
    finally:
        WATCHING.clear()
    lines = [json.loads(x) for x in (run.path / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 12 and all(line["solve"] for line in lines)
    loop = threading.get_ident()  # `trialrun.run` runs its event loop on the caller's thread
    small, large = _on_threads("inline-small", "os.mkdir"), _on_threads("inline-large", "os.mkdir")
    assert len(small) >= 4 and len(large) >= 4  # every trial's workspace was seen
    # the first trial measures the task's workspace off the loop; the other three stay on it
    assert sum(threads == {loop} for threads in small.values()) >= 3
    assert all(loop not in threads for threads in large.values())
    # another task on the same small fixture: every one of its workspaces on the loop
    twin = _on_threads("inline-twin-small", "os.mkdir")
    assert len(twin) == 4 and all(threads == {loop} for threads in twin.values())
    removed = [_on_threads(t, "shutil.rmtree") for t in ("inline-small", "inline-twin-small")]
    assert all(loop not in threads for each in removed for threads in each.values())
