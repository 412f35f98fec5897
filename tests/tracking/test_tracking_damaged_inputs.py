"""Damaged or wrong inputs to bless / compare / gate / report / leaderboard / import.

House rule: every user-caused error is ONE line on stderr naming the file (and place), exit
2, no traceback; with --json stdout is exactly one JSON document and stderr stays empty.
These tests go through `trialrun.cli.main`, the real entry point (its UserError handling).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import assert_one_line_error, cli


def _rewrite_results(run: Path, edit) -> None:  # a small callback
    path = run / "results.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    edit(lines)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (run / "summary.json").unlink()


@pytest.mark.parametrize(
    ("index", "key", "value", "needle"),
    [
        (0, "trial", "zero", "trial must be an integer"),
        (1, "tokens", 5, "tokens must be an object"),
        (1, "tokens", {"prompt": "many"}, "tokens.prompt must be a number"),
        (2, "tool_calls", "x", "tool_calls must be a list"),
        (2, "verdicts", [5], "verdicts[0] must be an object"),
        (0, "latency_s", "slow", "latency_s must be a number"),
        (1, "error", "boom", "error must be an object"),
        (2, "pass", "yes", "pass must be true, false or null"),
        (0, "task_id", 7, "task_id must be a string"),
    ],
)
@pytest.mark.parametrize("command", ["compare", "report", "bless", "gate"])
def test_results_line_with_wrong_types_is_one_line(
    make_run, T, tmp_path, capsys, index, key, value, needle, command
) -> None:
    run = make_run([T("a")])

    def edit(lines: list[dict]) -> None:
        lines[index][key] = value

    _rewrite_results(run, edit)
    args = {
        "compare": ["compare", run],
        "report": ["report", run],
        "bless": ["bless", run, "--baselines", tmp_path / "bl"],
        "gate": ["gate", "merge", run],
    }[command]
    code, out, err = cli(capsys, *args)
    assert_one_line_error(code, err, f"results.jsonl:{index + 1}:", needle)
    assert not (tmp_path / "bl").exists()  # nothing blessed from a damaged run


def test_garbage_line_in_the_middle_names_the_line(make_run, T, capsys) -> None:
    run = make_run([T("a")])
    lines = (run / "results.jsonl").read_text().splitlines()
    lines[1] = "garbage here"
    (run / "results.jsonl").write_text("\n".join(lines) + "\n")
    code, _, err = cli(capsys, "compare", run, "--json")
    assert_one_line_error(code, err, "results.jsonl:2:", "not a JSON line")


def test_torn_last_line_is_dropped_even_before_trailing_blank_lines(make_run, T, capsys) -> None:
    run = make_run([T("a", n=3)])
    with open(run / "results.jsonl", "a") as handle:
        handle.write('{"task_id": "a", "mod\n\n')
    (run / "summary.json").unlink()
    code, out, err = cli(capsys, "compare", run, "--baseline", run / "nope.json")
    assert_one_line_error(code, err, "nope.json", "baseline not found")
    from trialrun.tracking import load_run

    loaded = load_run(run)
    assert len(loaded.results) == 3
    assert loaded.records[0].n == 3


def test_non_utf8_results_file(make_run, T, capsys) -> None:
    run = make_run([T("a")])
    (run / "results.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = cli(capsys, "report", run)
    assert_one_line_error(code, err, "results.jsonl", "not UTF-8")


def test_damaged_summary_row_names_the_field_and_the_fix(make_run, T, capsys) -> None:
    run = make_run([T("a")])
    summary = json.loads((run / "summary.json").read_text())
    summary["tasks"][0]["n"] = "three"
    (run / "summary.json").write_text(json.dumps(summary))
    code, _, err = cli(capsys, "gate", "merge", run)
    assert_one_line_error(code, err, "summary.json", "tasks[0].n must be an integer", "delete it")


def test_missing_summary_is_recomputed_and_a_missing_manifest_is_one_line(
    make_run, T, capsys
) -> None:
    run = make_run([T("a"), T("b", solved=2)])
    (run / "summary.json").unlink()
    code, out, err = cli(capsys, "report", run)
    assert code == 0, err
    assert "`b`" in out and "solved 2/3" in out
    (run / "run.json").unlink()
    code, _, err = cli(capsys, "report", run)
    assert_one_line_error(code, err, "run.json: not found")


def test_manifest_with_wrong_shapes_is_one_line(make_run, T, capsys) -> None:
    run = make_run([T("a")])
    (run / "run.json").write_text(json.dumps({"tasks": 5, "models": "x", "k": "y"}))
    (run / "summary.json").unlink()
    code, out, err = cli(capsys, "compare", run, "--json")
    assert_one_line_error(code, err, "run.json")
    assert out == ""


def test_a_file_instead_of_the_run_directory(make_run, T, capsys, tmp_path) -> None:
    run = make_run([T("a")])
    code, _, err = cli(capsys, "bless", run / "results.jsonl", "--baselines", tmp_path / "b")
    assert_one_line_error(code, err, "is a file, not a run directory", f"pass its folder {run}")


def test_explicit_baselines_folder_must_exist(make_run, T, capsys, tmp_path) -> None:
    run = make_run([T("a")])
    for command in (["compare", run], ["gate", "merge", run], ["report", run]):
        code, _, err = cli(capsys, *command, "--baselines", tmp_path / "typo")
        assert_one_line_error(code, err, "--baselines", "no such folder")
    a_file = tmp_path / "file.json"
    a_file.write_text("{}")
    code, _, err = cli(capsys, "gate", "merge", run, "--baselines", a_file)
    assert_one_line_error(code, err, "is a file", "--baseline FILE")
    code, _, err = cli(capsys, "bless", run, "--baselines", a_file)
    assert_one_line_error(code, err, "is a file")
    # bless creates a folder that does not exist yet
    code, out, err = cli(capsys, "bless", run, "--baselines", tmp_path / "new")
    assert code == 0, err
    assert len(list((tmp_path / "new").glob("*.json"))) == 1


def test_baseline_file_problems(make_run, T, capsys, tmp_path) -> None:
    run = make_run([T("a")])
    cases = {
        "torn.json": (b'{"format": ', "torn.json:1: invalid JSON"),
        "binary.json": (b"\xff\x00\x01", "not UTF-8"),
        "list.json": (b"[]", "not a baseline"),
    }
    for name, (content, needle) in cases.items():
        (tmp_path / name).write_bytes(content)
        code, out, err = cli(capsys, "compare", run, "--baseline", tmp_path / name, "--json")
        assert_one_line_error(code, err, name, needle)
        assert out == ""
    code, _, err = cli(capsys, "compare", run, "--baseline", tmp_path)
    assert_one_line_error(code, err, "not a run directory")


def test_leaderboard_of_an_empty_folder_says_what_to_do(capsys, tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("not a baseline")
    code, out, err = cli(capsys, "leaderboard", tmp_path)
    assert_one_line_error(code, err, str(tmp_path), "no baseline files", "trialrun bless")
    assert out == ""


def test_leaderboard_json_is_one_document_with_warnings_inside(
    make_run, T, capsys, tmp_path
) -> None:
    run = make_run([T("a")])
    bl = tmp_path / "bl"
    assert cli(capsys, "bless", run, "--baselines", bl)[0] == 0
    (bl / "broken.json").write_text('{"format": "trialrun-baseline/1", "k": "x"')
    code, out, err = cli(capsys, "leaderboard", bl, "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert [r["model"] for r in data["rows"]] == ["gemini-2.5-flash"]
    assert len(data["warnings"]) == 1 and "broken.json" in data["warnings"][0]


def test_import_scribe_baseline_bad_inputs(scribe, capsys, tmp_path) -> None:
    code, _, err = cli(capsys, "import", "scribe-baseline", tmp_path)
    assert_one_line_error(code, err, "is a folder")
    (tmp_path / "bin.json").write_bytes(b"\xff\x00")
    code, _, err = cli(capsys, "import", "scribe-baseline", tmp_path / "bin.json")
    assert_one_line_error(code, err, "bin.json", "not UTF-8")
    good = tmp_path / "scribe.json"
    good.write_text(json.dumps(scribe("m-1", "gemini", "2026-05-24T22-49-06-481Z", "abc", [])))
    a_file = tmp_path / "out.json"
    a_file.write_text("{}")
    code, _, err = cli(capsys, "import", "scribe-baseline", good, "-o", a_file)
    assert_one_line_error(code, err, "is a file", "folder")
    code, out, err = cli(capsys, "import", "scribe-baseline", good, "-o", tmp_path / "bl")
    assert code == 0, err
    assert (tmp_path / "bl" / "gemini-m-1.json").is_file()


def test_gate_and_compare_json_keep_stderr_empty(make_run, T, capsys, tmp_path) -> None:
    run = make_run([T("a"), T("b", suite="open_ended", solved=1)])
    (tmp_path / "bl").mkdir()
    for args in (
        ["gate", "merge", run, "--baselines", tmp_path / "bl", "--json"],
        ["gate", "release", run, "--baselines", tmp_path / "bl", "--json"],
        ["compare", run, "--baselines", tmp_path / "bl", "--json"],
    ):
        code, out, err = cli(capsys, *args)
        assert err == "", args
        assert isinstance(json.loads(out), dict)
        assert code in (0, 1)


def test_gate_config_that_is_a_folder_or_binary(make_run, T, capsys, tmp_path) -> None:
    run = make_run([T("a")])
    code, _, err = cli(capsys, "gate", "merge", run, "--config", tmp_path)
    assert_one_line_error(code, err, "--config", "is a folder")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe[gates]")
    code, _, err = cli(capsys, "gate", "merge", run, "--config", tmp_path / "bin.toml")
    assert_one_line_error(code, err, "bin.toml", "not UTF-8")
    (tmp_path / "bad.toml").write_text("[gates.merge]\nbogus = 1\n")
    code, _, err = cli(capsys, "gate", "merge", run, "--config", tmp_path / "bad.toml")
    assert_one_line_error(code, err, "bad.toml", "bogus")
