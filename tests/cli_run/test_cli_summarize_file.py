"""`trialrun summarize FILE.jsonl` summarizes a results file (trialrun issue 10 item 11).

Seen: "is a file; pass its folder". A run folder's own results.jsonl behaves as the folder;
any other file is summarized (with run.json beside it when there is one) and nothing is
written next to it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_support import cli


@pytest.fixture()
def run_dir(suite: Path, tmp_path: Path, capsys) -> Path:
    good = f"scripted:{suite / 'good.yaml'}"
    code, _, err = cli(capsys, "run", suite, "-m", good, "--out", tmp_path / "out", "-k", "2")
    assert code == 0, err
    (found,) = (tmp_path / "out").iterdir()
    return found


def _rows(doc: dict) -> dict[str, tuple]:
    return {
        r["task_id"]: (r["n"], r["passed"], r["solved"], r["pass_k"], r["solve_k"])
        for r in doc["tasks"]
    }


def test_a_run_folders_results_file_is_the_folder(run_dir: Path, capsys) -> None:
    before = json.loads((run_dir / "summary.json").read_text())
    (run_dir / "summary.json").unlink()
    code, out, err = cli(capsys, "summarize", run_dir / "results.jsonl", "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["run_dir"] == str(run_dir)
    assert json.loads((run_dir / "summary.json").read_text())["tasks"] == before["tasks"]


def test_a_lone_results_file_is_summarized_and_nothing_is_written(
    run_dir: Path, tmp_path: Path, capsys
) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    copy = folder / "nightly.jsonl"
    shutil.copy(run_dir / "results.jsonl", copy)
    code, out, err = cli(capsys, "summarize", copy, "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["run_dir"] is None and doc["results_file"] == str(copy)
    folder_doc = json.loads((run_dir / "summary.json").read_text())
    assert _rows(doc) == _rows(folder_doc)  # k comes from the lines when run.json is absent
    assert [p.name for p in folder.iterdir()] == ["nightly.jsonl"]
    code, out, err = cli(capsys, "summarize", copy)
    assert code == 0 and "read-note" in out and "write-note" in out
    assert [p.name for p in folder.iterdir()] == ["nightly.jsonl"]


def test_a_results_file_without_its_run_json_is_not_written_next_to(
    run_dir: Path, tmp_path: Path, capsys
) -> None:
    folder = tmp_path / "copied"
    folder.mkdir()
    shutil.copy(run_dir / "results.jsonl", folder / "results.jsonl")
    code, out, _ = cli(capsys, "summarize", folder / "results.jsonl", "--json")
    assert code == 0 and json.loads(out)["run_dir"] is None
    assert [p.name for p in folder.iterdir()] == ["results.jsonl"]


def test_a_sibling_run_json_gives_the_task_metadata(run_dir: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "pair"
    folder.mkdir()
    shutil.copy(run_dir / "run.json", folder / "run.json")
    lines = (run_dir / "results.jsonl").read_text().splitlines(keepends=True)
    (folder / "part.jsonl").write_text("".join(lines[:1]))  # one trial of the run
    code, out, err = cli(capsys, "summarize", folder / "part.jsonl", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["finished_trials"] == 1
    assert (
        doc["expected_trials"]
        == json.loads((run_dir / "summary.json").read_text())["expected_trials"]
    )
    assert sorted(p.name for p in folder.iterdir()) == ["part.jsonl", "run.json"]


def test_a_damaged_results_file_is_one_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task_id": "a"}\n{"task_id": "b", "model": "m", "trial": 0}\n')
    code, out, err = cli(capsys, "summarize", bad)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and f"{bad}:1" in err


def test_run_json_itself_still_points_at_the_folder(run_dir: Path, capsys) -> None:
    code, _, err = cli(capsys, "summarize", run_dir / "run.json")
    assert code == 2 and f"pass its folder {run_dir}" in err
