"""`HistoryStore.recent_outcomes`: per task × model its last N runs (the heat map's data),
over real run folders of the scripted model, on SQLite and on a real PostgreSQL server;
and `existing_store_url`, which reads a store but never creates one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import trialrun as _trialrun
from trialrun.errors import UserError
from trialrun.history import HistoryStore, existing_store_url, run_record
from trialrun.rundir import RunDir

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "examples" / "tasks" / "golden" / "organize_notes.yaml"  # 2 tasks, k = 3
GOOD = f"scripted:{REPO}/examples/scripts/good.yaml"
BAD = f"scripted:{REPO}/examples/scripts/bad.yaml"


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three real runs, oldest first: the good script, the bad one, the good one again."""
    root = tmp_path_factory.mktemp("recent")
    env = os.environ.copy()
    env["PYTHONPATH"] = str(Path(_trialrun.__file__).resolve().parents[1])
    made: list[Path] = []
    for i, model in enumerate((GOOD, BAD, GOOD)):
        out = root / f"results{i}"
        proc = subprocess.run(
            [sys.executable, "-m", "trialrun", "run", str(SUITE), "--model", model,
             "--out", str(out)],
            cwd=root, capture_output=True, text=True, timeout=300, env=env,
        )
        assert proc.returncode in (0, 1), proc.stderr  # 1: a task failed its gate
        (made_dir,) = [p for p in out.iterdir() if p.is_dir()]
        made.append(made_dir)
    return made


def _recorded(store: HistoryStore, run_dirs: list[Path]) -> list[str]:
    ids = []
    for path in run_dirs:
        record = run_record(path, trigger="local")
        assert store.record(record)
        ids.append(record.run_id)
    return ids


def test_last_runs_per_task_and_model_match_the_run_folders(
    store: HistoryStore, run_dirs: list[Path]
) -> None:
    ids = _recorded(store, run_dirs)
    assert ids == sorted(ids)  # started one after the other
    found = store.recent_outcomes(last=10)
    assert len(found) == 6  # 2 tasks × 3 runs (each run one model)
    assert [o.run_id for o in found] == [ids[0]] * 2 + [ids[1]] * 2 + [ids[2]] * 2
    for path, run_id in zip(run_dirs, ids, strict=True):
        summary = RunDir.open(path).stored_summary()
        assert summary is not None
        expected = {(r.task_id, r.model): (r.n, r.solved, r.undetermined)
                    for r in summary.tasks}
        got = {(o.test_id, o.model): (o.trials, o.solved, o.undetermined)
               for o in found if o.run_id == run_id}
        assert got == expected
    bad = {(o.test_id, o.solved, o.trials) for o in found if o.model == BAD}
    assert bad == {("count-recipes", 0, 3), ("file-idea", 0, 3)}


def test_the_window_is_per_task_and_model_not_the_last_runs_overall(
    store: HistoryStore, run_dirs: list[Path]
) -> None:
    ids = _recorded(store, run_dirs)
    latest = store.recent_outcomes(last=1)
    # the good model's latest run is the third; the bad model's only run (the second)
    # is still its latest, although it is not among the last 1 run overall
    assert {(o.model, o.run_id) for o in latest} == {(GOOD, ids[2]), (BAD, ids[1])}
    assert len(latest) == 4
    two = store.recent_outcomes(last=2, models={GOOD}, tests={"file-idea"})
    assert [(o.run_id, o.test_id, o.solved) for o in two] == [
        (ids[0], "file-idea", 3), (ids[2], "file-idea", 3)]
    assert store.recent_outcomes(last=5, kind="pytest") == []
    assert store.recent_outcomes(tests=set()) == []
    with pytest.raises(ValueError, match="last must be 1 or more"):
        store.recent_outcomes(last=0)


def test_existing_store_url_never_creates_a_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRIALRUN_HISTORY_URL", raising=False)
    assert existing_store_url() is None  # no .trialrun/history.db yet
    assert HistoryStore.open_existing() is None
    assert not (tmp_path / ".trialrun").exists()
    with pytest.raises(UserError, match=r"--store typo\.db: no such history store"):
        existing_store_url("typo.db")
    monkeypatch.setenv("TRIALRUN_HISTORY_URL", "configured.db")
    assert existing_store_url() is None  # configured but not there: nothing to read
    HistoryStore.open(str(tmp_path / ".trialrun" / "history.db")).close()
    monkeypatch.delenv("TRIALRUN_HISTORY_URL")
    assert existing_store_url() == f"sqlite:///{tmp_path / '.trialrun' / 'history.db'}"
    assert existing_store_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
