"""Bad input to `trialrun judge extract|calibrate|bias` and `trialrun regrade`: one line on
stderr naming the file, exit 2, no traceback (through the real entry point)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import assert_one_line_error, cli


def _run(tmp_path: Path, lines: list[object]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"run_id": "run", "models": ["scripted:x.yaml"]}))
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return run


def _line(trial: int = 0, passed: bool | None = True) -> dict[str, object]:
    return {
        "task_id": "t",
        "model": "scripted:x.yaml",
        "provider": "scripted",
        "trial": trial,
        "pass": True,
        "solve": passed,
        "error": None,
        "verdicts": [
            {"grader": "judge", "passed": passed, "details": {"type": "judge", "criteria": "c"}}
        ],
        "tool_calls": [],
        "final_text": "an answer",
        "user_message": "a question",
    }


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        (b"[]", ("expected a gold file object", "judge extract")),
        (b'{"version": 1', ("invalid JSON",)),
        (b"\xff\xfe\x00", ("not UTF-8",)),
        (b'{"version": 2, "tuples": []}', ("version",)),
        (b'{"version": 1}', ("tuples",)),
    ],
)
def test_calibrate_bad_gold_file(capsys, tmp_path, content, needles) -> None:
    gold = tmp_path / "gold.json"
    gold.write_bytes(content)
    code, out, err = cli(capsys, "judge", "calibrate", gold, "--recorded", "--json")
    assert_one_line_error(code, err, "gold.json", *needles)
    assert out == ""


def test_calibrate_folder_or_missing_file(capsys, tmp_path) -> None:
    code, _, err = cli(capsys, "judge", "calibrate", tmp_path, "--recorded")
    assert_one_line_error(code, err, "is a folder")
    code, _, err = cli(capsys, "judge", "calibrate", tmp_path / "none.json", "--recorded")
    assert_one_line_error(code, err, "none.json", "not found", "judge extract")


def test_calibrate_unknown_judge_provider_names_the_judge_flag(capsys, tmp_path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"version": 1, "tuples": []}))
    code, _, err = cli(capsys, "judge", "calibrate", gold, "--judge", "scriptd:x.yaml")
    assert_one_line_error(
        code, err, "--judge scriptd:x.yaml", "unknown provider", "did you mean 'scripted'"
    )
    assert "--model" not in err


def test_extract_to_a_folder_is_refused_even_with_force(capsys, tmp_path) -> None:
    run = _run(tmp_path, [_line()])
    target = tmp_path / "out"
    target.mkdir()
    for extra in ([], ["--force"]):
        code, _, err = cli(capsys, "judge", "extract", run, "-o", target, *extra)
        assert_one_line_error(code, err, "is a folder", "-o")
    assert list(target.iterdir()) == []


def test_extract_keeps_torn_last_line_out_and_rejects_damaged_lines(capsys, tmp_path) -> None:
    run = _run(tmp_path, [_line(0), _line(1, False)])
    with open(run / "results.jsonl", "a") as handle:
        handle.write('{"task_id": "t", "mo')
    code, out, err = cli(capsys, "judge", "extract", run, "-o", tmp_path / "g.json")
    assert code == 0, err
    gold = json.loads((tmp_path / "g.json").read_text())
    assert [t["automated_verdict"] for t in gold["tuples"]] == [True, False]

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "run.json").write_text("{}")
    (bad / "results.jsonl").write_text(json.dumps(_line()) + "\n5\n" + json.dumps(_line()) + "\n")
    for args in (
        ["judge", "extract", bad, "-o", tmp_path / "g2.json"],
        ["judge", "bias", bad, "--json"],
        ["regrade", bad, "--json"],
    ):
        code, out, err = cli(capsys, *args)
        assert_one_line_error(code, err, "results.jsonl:2:", "must be a JSON object")
        assert out == ""
    assert not (tmp_path / "g2.json").exists()


def test_run_json_that_is_not_an_object(capsys, tmp_path) -> None:
    run = _run(tmp_path, [_line()])
    (run / "run.json").write_text("[1, 2]")
    code, _, err = cli(capsys, "judge", "extract", run, "-o", tmp_path / "g.json")
    assert_one_line_error(code, err, "run.json", "expected a JSON object")


def test_transcript_that_is_not_an_object_is_ignored(capsys, tmp_path) -> None:
    line = _line()
    del line["final_text"], line["user_message"]
    line["transcript"] = "transcripts/t-0.json"
    run = _run(tmp_path, [line])
    (run / "transcripts").mkdir()
    (run / "transcripts" / "t-0.json").write_text("[1, 2, 3]")
    code, _, err = cli(capsys, "judge", "extract", run, "-o", tmp_path / "g.json")
    assert code == 0, err
    [item] = json.loads((tmp_path / "g.json").read_text())["tuples"]
    assert item["response"] == "" and item["user_message"] == ""


def test_calibration_warnings_keep_their_brackets(capsys) -> None:
    from trialrun.cli._judge import _print_calibration

    judge = {
        "judge": "scripted:[a].yaml",
        "n": 0,
        "confusion": {"tp": 0, "fp": 0, "tn": 0, "fn": 0},
        "judge_failed": 0,
        "skipped_unlabelled": 0,
    }
    for key in ("agreement", "majority_baseline", "kappa", "precision_yes", "recall_yes"):
        judge[key] = None
    for key in ("f1_yes", "precision_no", "recall_no", "f1_no"):
        judge[key] = None
    _print_calibration([judge], ["set [judge] model; [[A>B]] flips"])
    out = capsys.readouterr().out
    assert "set [judge] model; [[A>B]] flips" in out
    assert "[a].yaml" in out
