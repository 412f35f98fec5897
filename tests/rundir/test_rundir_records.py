"""The run-folder records: one reader each, one-line errors, crash-safe appends."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.errors import UserError
from trialrun.rundir import (
    Baseline,
    Manifest,
    RecordError,
    ResultLine,
    RunDir,
    Summary,
    Transcript,
)


def line(trial: int = 0, **over: object) -> ResultLine:
    return ResultLine(task_id="t", model="scripted:x", trial=trial, passed=True, solve=True, **over)


def make(tmp_path: Path) -> RunDir:
    return RunDir.create(tmp_path, "r1", Manifest(run_id="r1", models=["scripted:x"], k=2))


def test_create_is_atomic_and_appends_one_line_per_trial(tmp_path: Path) -> None:
    run = make(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r1"]  # no staging folder left
    assert run.results_path.read_bytes() == b""
    run.append(line(0))
    run.append(line(1, extra={"suite": "golden"}))
    run.close()
    assert [x.trial for x in RunDir.open(run.path).results()] == [0, 1]
    with pytest.raises(UserError, match="already exists"):
        make(tmp_path)


def test_torn_last_line_is_skipped_then_repaired(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.append(line(0))
    run.close()
    with open(run.results_path, "ab") as fh:
        fh.write(b'{"task_id": "t", "mod')
    assert len(run.results()) == 1
    assert run.repair_results() == len(b'{"task_id": "t", "mod')
    assert run.results_path.read_bytes().endswith(b"\n") and len(run.results()) == 1


def test_damaged_middle_line_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.append(line(0))
    run.close()
    with open(run.results_path, "ab") as fh:
        fh.write(b"garbage{\n" + json.dumps(line(1).to_json()).encode() + b"\n")
    with pytest.raises(UserError) as info:
        run.results()
    assert "results.jsonl:2: not a JSON line" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"trial": -1}, "trial must be an integer >= 0"),
        ({"trial": True}, "trial must be an integer"),
        ({"pass": "yes"}, "pass must be true, false or null"),
        ({"tokens": {"prompt": "many"}}, "tokens.prompt must be a number"),
        ({"verdicts": [5]}, "verdicts[0] must be an object"),
        ({"verdicts": [{"grader": "g", "details": "x"}]}, "verdicts[0].details must be an object"),
        ({"tool_calls": [{"name": "t", "arguments": "x"}]}, "tool_calls[0].arguments must be"),
    ],
)
def test_result_line_errors_name_the_key(change: dict, needle: str) -> None:
    with pytest.raises(RecordError) as info:
        ResultLine.from_json({**line().to_json(), **change})
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"models": "x"}, "models must be a list"),
        ({"k": "y"}, "k must be an integer >= 1 or null"),
        ({"tasks": [{"task_id": "a", "k": 0}]}, "tasks[0].k must be an integer >= 1"),
        ({"task_files": 5}, "task_files must be a list"),
        ({"task_files": [{"sha256": "x"}]}, "task_files[0] must be an object {path, sha256}"),
    ],
)
def test_manifest_refuses_a_damaged_key(change: dict, needle: str) -> None:
    """One policy (no lenient mode): every command refuses the same damaged run.json."""
    good = Manifest(run_id="r", models=["scripted:x"], k=2).to_json()
    with pytest.raises(RecordError) as info:
        Manifest.from_json({**good, **change})
    assert needle in str(info.value)


def test_summary_and_baseline_checks() -> None:
    with pytest.raises(RecordError, match=r"tasks\[0\].n must be an integer"):
        Summary.from_json({"tasks": [{"n": "3"}]})
    with pytest.raises(RecordError, match="not a baseline"):
        Baseline.from_json({"format": "other"})
    baseline = Baseline(model="m", provider="p", tasks=[{"task_id": "a", "n": 1, "passed": 1,
                                                          "solved": 1}])
    assert Baseline.from_json(baseline.to_json()) == baseline


def test_transcript_missing_or_unreadable_is_one_line(tmp_path: Path) -> None:
    run = make(tmp_path)
    rel = run.write_transcript("m", "t-0", Transcript(task_id="t", final_text="hi"))
    good = line(0, transcript=rel)
    assert run.transcript(good).final_text == "hi"
    (run.path / rel).write_text("{torn")
    with pytest.raises(UserError, match="cannot read the transcript"):
        run.transcript(good)
    assert run.transcript_or_empty(good) == Transcript()
    with pytest.raises(UserError, match="names no transcript"):
        run.transcript(line(1))


def test_open_says_what_to_pass(tmp_path: Path) -> None:
    run = make(tmp_path)
    with pytest.raises(UserError, match=f"pass its folder {run.path}"):
        RunDir.open(run.results_path)
    os.unlink(run.manifest_path)
    with pytest.raises(UserError, match="run.json: not found next to results.jsonl"):
        RunDir.open(run.path)
    os.unlink(run.results_path)
    with pytest.raises(UserError, match="not a run directory"):
        RunDir.open(run.path)


scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(
    max_size=5
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                               max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([
    "task_id", "model", "trial", "pass", "solve", "error", "verdicts", "tool_calls", "turns",
    "tokens", "cost_usd", "latency_s", "safety_violation", "transcript", "suite", "x",
]), values))  # fmt: skip
def test_any_json_object_is_read_or_refused_with_a_reason(item: dict) -> None:
    try:
        record = ResultLine.from_json(item)
    except RecordError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    again = ResultLine.from_json(json.loads(json.dumps(record.to_json())))
    assert again == record


def test_torn_line_before_blank_lines_and_cut_characters(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.append(line(0))
    run.close()
    with open(run.results_path, "ab") as fh:
        fh.write('{"task_id": "t", "final_text": "caf\u00e9'.encode()[:-1] + b"\n\n")
    assert [x.trial for x in run.results()] == [0]
    run.repair_results()
    assert run.results_path.read_bytes().count(b"\n") == 1
    run.results_path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(UserError, match="results.jsonl:1: not UTF-8 text"):
        run.results()


def test_a_whole_last_line_without_newline_is_kept_and_ended(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.results_path.write_text(json.dumps(line(0).to_json()))
    assert run.repair_results() == 0 and run.results_path.read_text().endswith("\n")
    assert len(run.results()) == 1
