"""`RunDir.read`, the one reader, and the writers: what is refused, skipped or escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trialrun.errors import UserError
from trialrun.rundir import (
    Manifest,
    ResultLine,
    RunDir,
    WriteError,
    read_json,
    write_json_atomic,
    write_text_atomic,
)

UNWRITABLE = Path("/proc/nope.md")  # /proc refuses new files, even to root


def line(trial: int = 0, task: str = "t", **over: object) -> ResultLine:
    return ResultLine(task_id=task, model="scripted:x", trial=trial, passed=True, solve=True,
                      **over)


def make(tmp_path: Path) -> RunDir:
    tasks = [{"task_id": "t", "k": 2}, {"task_id": "u", "k": 3}]
    return RunDir.create(tmp_path, "r1", Manifest(run_id="r1", models=["scripted:x"],
                                                 tasks=tasks))


def write_lines(run: RunDir, *raw: bytes) -> None:
    run.results_path.write_bytes(b"".join(x + b"\n" for x in raw))


def dumped(item: ResultLine) -> bytes:
    return json.dumps(item.to_json()).encode()


def refusal(run: RunDir) -> str:
    with pytest.raises(UserError) as info:
        run.read()
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_trial_must_be_below_its_tasks_k(tmp_path: Path) -> None:
    run = make(tmp_path)
    write_lines(run, dumped(line(1)), dumped(line(2, task="u")), dumped(line(2)))
    assert "results.jsonl:3: trial 2 is out of range for t (k = 2: trials 0 to 1)" in refusal(run)
    write_lines(run, dumped(line(1)), dumped(line(2, task="u")))
    assert [x.key for x in run.read().results] == [("t", "scripted:x", 1), ("u", "scripted:x", 2)]


def test_the_run_k_bounds_tasks_run_json_does_not_list(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path, "r1", Manifest(run_id="r1", models=["scripted:x"], k=3))
    write_lines(run, dumped(line(2, task="other")), dumped(line(3, task="other")))
    assert "results.jsonl:2: trial 3 is out of range for other (k = 3" in refusal(run)


def test_a_duplicate_line_is_refused_naming_both(tmp_path: Path) -> None:
    run = make(tmp_path)
    write_lines(run, dumped(line(0)), dumped(line(1)), dumped(line(0)))
    assert "results.jsonl:3: duplicate of line 1 (t, scripted:x, trial 0)" in refusal(run)


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b'"latency_s": NaN', "results.jsonl:1: latency_s is NaN"),
        (b'"cost_usd": -Infinity', "results.jsonl:1: cost_usd is -Infinity"),
        (b'"latency_s": 1e999', "results.jsonl:1: latency_s is Infinity"),
        (b'"verdicts": [{"grader": "g", "details": {"score": Infinity}}]',
         "verdicts[0].details.score is Infinity"),
    ],
)
def test_non_finite_numbers_anywhere_are_refused_naming_the_key(
    tmp_path: Path, raw: bytes, needle: str
) -> None:
    run = make(tmp_path)
    write_lines(run, b'{"task_id": "t", "model": "m", "trial": 0, ' + raw + b"}", dumped(line(1)))
    message = refusal(run)
    assert needle in message and "which JSON does not allow" in message


def test_non_finite_numbers_in_run_json_are_refused(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.manifest_path.write_text('{"run_id": "r1", "extra": {"x": NaN}}')
    assert "run.json: extra.x is NaN" in refusal(run)
    with pytest.raises(UserError, match="extra.x is NaN"):
        read_json(run.manifest_path)


def test_torn_last_line_is_skipped_with_a_warning_and_repair_cuts_only_that(
    tmp_path: Path,
) -> None:
    run = make(tmp_path)
    write_lines(run, dumped(line(0)))
    with open(run.results_path, "ab") as fh:
        fh.write(b'{"task_id": "t", "latency_s": NaN, "mo')  # unfinished: torn, not refused
    contents = run.read()
    assert len(contents.results) == 1
    assert contents.warnings == [
        f"{run.results_path}:2: torn last line ignored (a killed write); "
        "`trialrun run --resume` drops it and reruns that trial"
    ]
    assert run.repair_results() > 0 and run.read().warnings == []


def test_a_whole_last_line_with_bad_utf8_is_refused_not_cut(tmp_path: Path) -> None:
    run = make(tmp_path)
    write_lines(run, dumped(line(0)), b'{"task_id": "\xff"}')
    assert run.repair_results() == 0  # not a torn write: the reader refuses it, repair keeps it
    assert "results.jsonl:2: not UTF-8 text" in refusal(run)


def test_no_results_file_is_no_trials_yet(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.results_path.unlink()
    contents = RunDir.open(run.path).read()
    assert contents.results == [] and contents.manifest.run_id == "r1"


def test_appended_lines_never_hold_nan_or_unencodable_text(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.append(line(0, latency_s=float("nan"), extra={"final_text": "a\ud800b",
                                                      "args": {"x": float("inf")}}))
    run.close()
    text = run.results_path.read_text("utf-8")
    assert "NaN" not in text and "Infinity" not in text and "\\ud800" in text
    (back,) = run.read().results
    assert back.latency_s is None and back.extra["args"] == {"x": None}
    assert back.final_text == "a\ud800b"


def test_write_json_atomic_refuses_nan_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    with pytest.raises(UserError) as info:
        write_json_atomic(target, {"tasks": [{"latency_p95_s": float("nan")}]})
    assert f"cannot write {target}: tasks[0].latency_p95_s is NaN" in str(info.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_an_unwritable_path_is_one_line_naming_it() -> None:
    for write in (lambda: write_text_atomic(UNWRITABLE, "x"),
                  lambda: write_json_atomic(UNWRITABLE.with_suffix(".json"), {})):
        with pytest.raises(UserError) as info:
            write()
        message = str(info.value)
        assert message.startswith("cannot write /proc/nope.")
        assert message.endswith("; choose a writable path") and "\n" not in message
        # still an OSError: callers that degrade on one (a read-only run folder) keep doing so
        assert isinstance(info.value, WriteError) and isinstance(info.value, OSError)
        assert info.value.strerror
