"""`RunDir.iter_results` (the streaming reader) and the tail-only `repair_results`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trialrun.errors import UserError
from trialrun.rundir import Manifest, ResultLine, RunDir


def make(tmp_path: Path) -> RunDir:
    return RunDir.create(tmp_path, "r1", Manifest(run_id="r1", models=["m"], k=200))


def dumped(trial: int, task: str = "t", **extra: object) -> bytes:
    line = ResultLine(task_id=task, model="m", trial=trial, passed=True, solve=trial % 3 != 0)
    line.extra.update(extra)
    return json.dumps(line.to_json()).encode()


def test_stream_gives_what_read_gives_with_the_torn_line_warned(tmp_path: Path) -> None:
    run = make(tmp_path)
    body = b"\n".join(dumped(i, pad="x" * 5000) for i in range(150))
    run.results_path.write_bytes(body + b"\n\n" + dumped(150)[:40] + b"\n  \n")
    warnings: list[str] = []
    streamed = list(run.iter_results(warnings))
    contents = run.read()
    assert [x.key for x in streamed] == [x.key for x in contents.results]
    assert [x.solve for x in streamed] == [i % 3 != 0 for i in range(150)]
    assert warnings == contents.warnings
    assert warnings == [
        f"{run.results_path}:152: torn last line ignored (a killed write); "
        "`trialrun run --resume` drops it and reruns that trial"
    ]


def test_a_bad_line_before_the_end_is_refused_when_streamed(tmp_path: Path) -> None:
    run = make(tmp_path)
    run.results_path.write_bytes(dumped(0) + b"\n{oops\n" + dumped(1) + b"\n")
    with pytest.raises(UserError) as info:
        list(run.iter_results())
    assert str(info.value).startswith(f"{run.results_path}:2: not a JSON line;")
    run.results_path.write_bytes(dumped(0) + b"\n" + dumped(0) + b"\n")
    with pytest.raises(UserError, match=r":2: duplicate of line 1 \(t, m, trial 0\)"):
        list(run.iter_results())


def test_a_last_line_with_nan_is_an_error_not_a_torn_line(tmp_path: Path) -> None:
    run = make(tmp_path)
    nan = dumped(1).replace(b'"turns": 0', b'"turns": NaN')
    run.results_path.write_bytes(dumped(0) + b"\n" + nan)
    with pytest.raises(UserError, match=r"results.jsonl:2: "):
        list(run.iter_results())


def test_repair_reads_only_the_tail_and_cuts_a_torn_line(tmp_path: Path) -> None:
    run = make(tmp_path)
    whole = b"".join(dumped(i, pad="y" * 3000) + b"\n" for i in range(120))  # > 64 KiB
    torn = dumped(120, pad="z" * 200_000)[:150_000]  # a torn line longer than one block
    run.results_path.write_bytes(whole + torn + b"\n\n")
    dropped = run.repair_results()
    assert dropped == len(torn) + 2
    assert run.results_path.read_bytes() == whole
    assert run.result_keys() == [("t", "m", i) for i in range(120)]
    run.results_path.write_bytes(whole[:-1])  # a whole last line without its newline
    assert run.repair_results() == 0
    assert run.results_path.read_bytes() == whole
    run.results_path.write_bytes(b"\n \n")
    assert run.repair_results() == 0
    assert run.result_keys() == []


def test_transcripts_append_to_one_file_and_are_read_by_offset(tmp_path: Path) -> None:
    from trialrun.rundir import Transcript

    run = make(tmp_path)
    refs = [run.append_transcript("m", Transcript(task_id="t", trial=i, final_text="é" * i))
            for i in range(3)]
    run.close()
    assert {rel for rel, _ in refs} == {"transcripts/m.jsonl"}
    with open(run.path / "transcripts/m.jsonl", "ab") as fh:  # a killed run's torn tail
        fh.write(b'{"task_id": "t", "tri')
    again = RunDir.open(run.path)
    refs.append(again.append_transcript("m", Transcript(task_id="t", trial=3)))
    again.close()
    for i, (rel, offset) in enumerate(refs):
        line = ResultLine("t", "m", i, True, True, transcript=rel)
        line.extra["transcript_offset"] = offset
        got = again.transcript(line)
        assert (got.trial, got.final_text) == (i, "é" * i if i < 3 else "")
    bad = ResultLine("t", "m", 0, True, True, transcript="transcripts/m.jsonl")
    bad.extra["transcript_offset"] = refs[1][1] + 3  # not the start of a line
    with pytest.raises(UserError, match="cannot read the transcript"):
        again.transcript(bad)
