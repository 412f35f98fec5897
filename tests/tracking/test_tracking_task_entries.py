"""bless, compare and gate let go of run.json's task entries once they are read: the
records and their gates are what the entries said, and nothing else changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trialrun.errors import UserError
from trialrun.rundir import Manifest, ResultLine, RunDir
from trialrun.tracking import bless, compare_runs, load_run, run_gate

MODEL = "openai-compat:entries-2026-01-01"


def _write(out: Path, trials: int = 3) -> Path:
    metas: list[dict[str, Any]] = [
        {"task_id": "nightly-only", "suite": "golden", "k": 3, "gates": ["nightly"]},
        {"task_id": "merge", "suite": "golden", "k": 3, "gates": {"ci_merge_gate": True}},
        {"task_id": "defaults", "suite": "adversarial", "k": 3, "tags": ["a"]},
    ]
    manifest = Manifest(run_id="entries", started_at="2026-01-01T00:00:00+00:00",
                        models=[MODEL], trialrun_version="test", tasks=metas)
    run = RunDir.create(out, "entries", manifest, fsync=False)
    for meta in metas:
        for trial in range(trials):
            run.append(ResultLine(task_id=str(meta["task_id"]), model=MODEL, trial=trial,
                                  passed=True, solve=True, latency_s=1.0,
                                  extra={"gates": ["release"]}), sync=False)
    run.close()
    return run.path


def test_a_reader_lets_the_entries_go_and_keeps_their_gates(tmp_path: Path) -> None:
    path = _write(tmp_path / "results")
    kept, dropped = load_run(path), load_run(path, keep_task_entries=False)
    assert len(kept.manifest.tasks) == 3 and dropped.manifest.tasks == []
    assert [r.gates for r in dropped.records] == [r.gates for r in kept.records]
    gates = {r.task_id: r for r in dropped.records}
    assert gates["nightly-only"].in_gate("nightly") and not gates["nightly-only"].in_gate("merge")
    assert gates["merge"].in_gate("merge")
    assert dropped.summary.to_json() == kept.summary.to_json()
    assert [r.metrics() for r in dropped.records] == [r.metrics() for r in kept.records]


def test_a_manifest_the_caller_gives_is_not_changed(tmp_path: Path) -> None:
    path = _write(tmp_path / "results")
    manifest = RunDir.open(path).manifest()
    load_run(path, manifest=manifest, keep_task_entries=False)
    assert len(manifest.tasks) == 3


def test_the_readers_give_what_they_gave_with_the_entries(tmp_path: Path) -> None:
    path = _write(tmp_path / "results")
    gate = run_gate("merge", path, baselines_dir=tmp_path / "none")
    same = run_gate("merge", load_run(path), baselines_dir=tmp_path / "none")
    assert gate.to_dict() == same.to_dict()
    [c] = compare_runs(path, path)
    [d] = compare_runs(load_run(path), load_run(path))
    assert c.to_dict() == d.to_dict()
    [blessed] = bless(path, tmp_path / "baselines")
    assert '"task_id": "nightly-only"' in blessed.path.read_text(encoding="utf-8")


def test_the_results_stream_checks_k_from_the_entries_it_was_given(tmp_path: Path) -> None:
    """The stream reads each task's k when it is made, so the entries may go before the
    lines are read and a trial out of range is still refused."""
    path = _write(tmp_path / "results", trials=3)
    with (path / "results.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"task_id": "merge", "model": MODEL, "trial": 3, "pass": True}) + "\n")
    run = RunDir.open(path)
    manifest = run.manifest()
    lines = run.iter_results(manifest=manifest)
    manifest.tasks = []
    with pytest.raises(UserError, match="trial 3 is out of range for merge"):
        list(lines)
