"""A large summary.json is read a row at a time (`summary_by_rows`) to the same summary
as read whole, and any text out of its plain shape is left to the whole-file path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.errors import UserError
from trialrun.rundir import Manifest, RunDir, Summary
from trialrun.rundir._json import loads_checked
from trialrun.rundir._summary_text import summary_by_rows

MODEL = "openai-compat:m-2026-01-01"
_NUMBER = st.one_of(st.none(), st.integers(0, 9), st.floats(0, 1, allow_nan=False))


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    rows = [
        {"task_id": f"t{i}", "model": MODEL, "suite": draw(st.sampled_from(["golden", None])),
         "k": draw(st.integers(1, 3)), "n": draw(st.integers(0, 3)),
         "pass_k": draw(_NUMBER), "solve_k": draw(_NUMBER), "mean_turns": draw(_NUMBER),
         "tags": draw(st.lists(st.sampled_from(["a", "b"]), max_size=2)),
         "failed_graders": draw(st.dictionaries(st.sampled_from(["x", "y"]),
                                                st.integers(0, 3))),
         "extra_key": draw(st.sampled_from([None, [1, {"z": 2}], "é\\u"]))}
        for i in range(draw(st.integers(0, 60)))
    ]
    return {"run_id": "r", "models": [MODEL], "k": draw(st.sampled_from([None, 2, "x"])),
            "tasks": rows, "aggregate": {MODEL: {"tasks": len(rows), "rate": 0.5}},
            "warnings": draw(st.lists(st.text(max_size=3), max_size=2))}


@settings(max_examples=60, deadline=None)
@given(documents(), st.sampled_from([None, 0, 2]), st.booleans())
def test_rows_one_at_a_time_read_as_the_whole_file(
    doc: dict[str, Any], indent: int | None, ascii_only: bool
) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=ascii_only)
    by_rows = summary_by_rows(text)
    assert by_rows is not None
    assert by_rows.to_json() == Summary.from_json(loads_checked(text)).to_json()


@pytest.mark.parametrize("text", [
    '{"tasks": [], "k": 1}',  # tasks before k: the rows need k
    '{"k": 1, "k": 2, "tasks": []}',  # a repeated key (json keeps the last)
    '{"k": 1, "tasks": [{"task_id": "a", "model": "m", "pass_k": NaN}]}',
    '{"k": 1, "tasks": [{"task_id": "a", "model": "m", "pass_k": 1e999}]}',
    '{"k": 1, "tasks": [{"task_id": "a", "model": "m"},]}',
    '{"k": 1, "tasks": [],}',
    '{"k": 1, "tasks": [{"task_id": "a", "model": "m", "n": "x"}]}',  # the row's error
    '{"k": 1, "tasks": []} x',
    '[1, 2]',
    '\ufeff{"k": 1, "tasks": []}',
    '{"k": 1, "tasks": [{"task_id": "a"}] ',
])
def test_text_out_of_the_plain_shape_is_left_to_the_whole_file_path(text: str) -> None:
    assert summary_by_rows(text) is None


def test_a_large_stored_summary_reads_the_same_and_fails_the_same(tmp_path: Path) -> None:
    rows = [{"task_id": f"t{i}", "model": MODEL, "k": 1, "n": 1, "pass_n": 1, "passed": 1,
             "pass_k": 1.0, "tags": ["a"]} for i in range(300)]
    doc = {"run_id": "r", "models": [MODEL], "k": 1, "tasks": rows}
    run = RunDir.create(tmp_path / "results", "r", Manifest(run_id="r"), fsync=False).path
    (run / "summary.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    summary = RunDir.open(run).stored_summary()
    assert summary is not None
    assert summary.to_json() == Summary.from_json(doc).to_json()
    rows[200]["n"] = "x"
    (run / "summary.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    with pytest.raises(UserError, match=r"tasks\[200\]\.n must be an integer"):
        RunDir.open(run).stored_summary()
    text = json.dumps(doc, indent=2).replace('"x"', "NaN")
    (run / "summary.json").write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match="NaN"):
        RunDir.open(run).stored_summary()


def test_a_large_summary_is_never_one_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read a row at a time: the whole-file reader is not asked (its tree of a 10,000-row
    file is 24 MB for 6 MB of text)."""
    from trialrun.rundir import _json

    rows = [{"task_id": f"t{i}", "model": MODEL, "k": 1, "tags": ["a"]} for i in range(600)]
    run = RunDir.create(tmp_path / "results", "r", Manifest(run_id="r"), fsync=False).path
    (run / "summary.json").write_text(json.dumps({"k": 1, "tasks": rows}), encoding="utf-8")

    def whole(raw: bytes, **_: object) -> object:
        raise AssertionError("read whole")

    monkeypatch.setattr(_json, "loads_bytes", whole)
    summary = RunDir.open(run).stored_summary()
    assert summary is not None and len(summary.tasks) == 600
