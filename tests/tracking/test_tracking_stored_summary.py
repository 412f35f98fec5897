"""A finished run's summary.json is what the readers take: it is read before the lines
(its objects let go before the tallies grow), each row's text interned and its 0 and 1
shared, and a damaged one is still named only after the lines were read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trialrun.errors import UserError
from trialrun.metrics import summarize_rundir
from trialrun.rundir import Manifest, ResultLine, RunDir, Summary
from trialrun.tracking import load_run

MODEL = "openai-compat:stored-2026-01-01"


def _write(out: Path, tasks: int = 4) -> Path:
    metas = [{"task_id": f"t{i}", "suite": "golden", "tier": "T1", "k": 2,
              "tags": ["smoke"], "policy": "ALWAYS_PASSES"} for i in range(tasks)]
    manifest = Manifest(run_id="stored", started_at="2026-01-01T00:00:00+00:00",
                        models=[MODEL], trialrun_version="test", tasks=metas)
    run = RunDir.create(out, "stored", manifest, fsync=False)
    for i in range(tasks):
        for trial in range(2):
            run.append(ResultLine(task_id=f"t{i}", model=MODEL, trial=trial, passed=True,
                                  solve=i != 0, latency_s=1.0), sync=False)
    run.close()
    run.write_summary(summarize_rundir(run))
    return run.path


def test_rows_read_back_share_their_text_and_their_ends(tmp_path: Path) -> None:
    summary = RunDir.open(_write(tmp_path / "results")).stored_summary()
    assert summary is not None
    rows = summary.tasks
    for key in ("model", "suite", "tier", "policy", "metric", "provider"):
        assert len({id(getattr(r, key)) for r in rows}) == 1, key
    assert len({id(r.tags[0]) for r in rows}) == 1
    assert rows[1].solve_k == 1.0 and rows[1].solve_k is rows[2].pass_k
    assert rows[0].solve_k == 0.0 and rows[0].solve_k is rows[0].pass_at_k


def test_negative_zero_reads_back_as_itself(tmp_path: Path) -> None:
    row = {"task_id": "t", "model": MODEL, "k": 1, "n": 1, "pass_n": 1, "mean_turns": -0.0}
    [back] = Summary.from_json({"tasks": [row]}).tasks
    assert json.dumps(back.to_json()["mean_turns"]) == "-0.0"


def test_a_consumed_document_lets_each_row_go_once_read() -> None:
    data = {"tasks": [{"task_id": f"t{i}", "model": MODEL, "k": 1} for i in range(3)]}
    summary = Summary.from_json(data, consume=True)
    assert [r.task_id for r in summary.tasks] == ["t0", "t1", "t2"]
    assert data["tasks"] == [None, None, None]
    kept = {"tasks": [{"task_id": "t", "model": MODEL}]}
    Summary.from_json(kept)
    assert kept["tasks"][0] is not None


def test_the_stored_summary_is_read_before_the_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "results")
    order: list[str] = []
    real_stored, real_lines = RunDir.stored_summary, RunDir.iter_results_with_offsets

    def stored(self: RunDir) -> Summary | None:
        order.append("summary.json")
        return real_stored(self)

    def lines(self: RunDir, *args: object, **kwargs: object) -> object:
        for item in real_lines(self, *args, **kwargs):  # type: ignore[arg-type]
            order.append("line")
            yield item

    monkeypatch.setattr(RunDir, "stored_summary", stored)
    monkeypatch.setattr(RunDir, "iter_results_with_offsets", lines)
    run = load_run(path, keep_task_entries=False)
    assert order[0] == "summary.json" and order.count("line") == 8
    assert run.summary.to_json() == RunDir.open(path).stored_summary().to_json()  # type: ignore[union-attr]


def test_a_damaged_summary_is_named_after_a_damaged_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "results")
    (path / "summary.json").write_text('{"tasks": [{"task_id": "t0", "n": "x"}]}')
    with pytest.raises(UserError, match="summary.json"):
        load_run(path)
    with (path / "results.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"task_id": "t0", "model": MODEL, "trial": 0}) + "\n")
    with pytest.raises(UserError, match="duplicate of line 1"):
        load_run(path)
