"""Hostile benchmark inputs: one line naming the file, the place and the fix, exit 2
(issue 32, item 10).

A dataset that is not UTF-8 (or not text at all), a JSON line nested 10^5 deep or with a
5,000-digit record id, an `output_dir` under /proc, a suite TOML nested 10^5 deep or with a
5,000-digit number: each died with a traceback (UnicodeDecodeError, RecursionError,
AttributeError, FileNotFoundError, ValueError). Each is refused before a trial runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from security_readers_support import one_line

from cli_support import cli

DEPTH = 100_000
DIGITS = 5_000

ROWS = [
    {"uuid": f"sg-{i}", "question": f"Question {i}?", "options": ["alpha", "beta"],
     "answer_letter": "A", "discipline": "Science"}
    for i in range(2)
]
SUITE = """
[run]
output_dir = "{out}"

[[models]]
name = "model.json"
provider = "scripted"

[[benchmarks]]
name = "supergpqa"
backend = "direct"
dataset = "{dataset}"
"""


def _jsonl(*extra: bytes) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in ROWS) + b"".join(
        line + b"\n" for line in extra
    )


def _csv(*extra: bytes) -> bytes:
    head = b"uuid,question,options,answer_letter\n"
    return head + b'sg-0,Question 0?,"[""alpha"", ""beta""]",A\n' + b"".join(
        line + b"\n" for line in extra
    )


# file name -> (its bytes, what the one line says after the file's name)
DATASETS: dict[str, tuple[bytes, str]] = {
    "latin1.jsonl": (_jsonl('{"uuid": "x", "question": "café"}'.encode("latin-1")),
                     "latin1.jsonl:3: not UTF-8 text"),
    "binary.jsonl": (bytes(range(255, -1, -1)) * 8, "binary.jsonl:1: not UTF-8 text"),
    "latin1.csv": (_csv("x,café?,[],A".encode("latin-1")), "latin1.csv:3: not UTF-8 text"),
    "binary.csv": (b"uuid,question\n" + bytes(range(128, 256)) * 8, "binary.csv:2: not UTF-8"),
    "huge-field.csv": (_csv(b"x," + b"q" * 200_000 + b",[],A"),
                       "huge-field.csv:3: not a CSV row (field larger than field limit"),
    "nested.jsonl": (_jsonl(b'{"uuid": "n", "options": ' + b"[" * DEPTH + b"]" * DEPTH + b"}"),
                     "nested.jsonl:3: nested too deep"),
    "long-id.jsonl": (_jsonl(b'{"uuid": ' + b"7" * DIGITS + b', "question": "q"}'),
                      "long-id.jsonl:3: a 5000-digit number"),
}


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.json").write_text(json.dumps({"default": [{"content": "A"}]}))
    return tmp_path


def _suite(folder: Path, dataset: str, out: str = "out") -> Path:
    path = folder / "suite.toml"
    path.write_text(SUITE.format(out=out, dataset=dataset))
    return path


@pytest.mark.parametrize("name", list(DATASETS))
def test_a_hostile_dataset_is_one_line_before_any_trial(
    name: str, suite_dir: Path, capsys
) -> None:
    content, needle = DATASETS[name]
    (suite_dir / name).write_bytes(content)
    code, _, err = cli(capsys, "run", _suite(suite_dir, name))
    line = one_line(code, err)
    assert f"dataset {name}" in line or f"dataset {suite_dir / name}" in line, line
    assert needle in line, line
    assert not (suite_dir / "out" / "runs").exists()  # refused before any trial


def test_a_list_column_nested_too_deep_is_read_as_no_list(suite_dir: Path, capsys) -> None:
    """CSV copies keep lists as text; one nested 10^5 deep is no list (as any text that is
    not one), not a crash."""
    bomb = "[" * 50_000 + "]" * 50_000  # under csv's 128 KiB a field
    (suite_dir / "deep.csv").write_bytes(_csv(f'x,Question?,"{bomb}",A'.encode()))
    code, out, err = cli(capsys, "run", _suite(suite_dir, "deep.csv"))
    assert code == 0 and "Traceback" not in err, err
    assert "supergpqa × model.json" in out


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("out", ["/proc/trialrun-out", "/proc/self/out", "/proc"])
def test_an_output_dir_under_proc_is_one_line_before_any_work(
    out: str, suite_dir: Path, capsys
) -> None:
    (suite_dir / "ok.jsonl").write_bytes(_jsonl())
    code, _, err = cli(capsys, "run", _suite(suite_dir, "ok.jsonl", out=out))
    line = one_line(code, err)
    assert f"output_dir {out}: cannot write there" in line, line
    assert "writable folder" in line


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_run_all_with_out_under_proc_is_one_line(suite_dir: Path, capsys) -> None:
    code, _, err = cli(capsys, "run-all", "-m", "scripted:model.json", "--out", "/proc/x")
    line = one_line(code, err)
    assert "output_dir /proc/x: cannot write there" in line, line


# suite TOML -> what the one line says after the file's name
SUITES: dict[str, tuple[str, str]] = {
    "array bomb": ("[meta]\nname = 'x'\n[run]\nseed = " + "[" * DEPTH + "]" * DEPTH + "\n",
                   ":4: nested too deep"),
    "inline-table bomb": ("[meta]\nname = " + "{a = " * DEPTH + "1" + "}" * DEPTH + "\n",
                          ":2: nested too deep"),
    "5,000-digit number": ("[meta]\nname = 'x'\n[run]\nseed = " + "1" * DIGITS + "\n",
                           ":4: a 5000-digit number"),
}


@pytest.mark.parametrize("name", list(SUITES))
def test_a_hostile_suite_file_is_one_line(name: str, suite_dir: Path, capsys) -> None:
    text, needle = SUITES[name]
    path = suite_dir / "bomb.toml"
    path.write_text(text)
    code, _, err = cli(capsys, "run", path)
    line = one_line(code, err)
    assert f"{path}{needle}" in line, line


def test_a_records_file_past_json_limits_is_one_line(suite_dir: Path, capsys) -> None:
    """`summarize FILE.jsonl` of a per-record file with a bad line after a good first one."""
    first = {"record_id": "a", "benchmark": "supergpqa", "model": "m", "is_correct": True}
    path = suite_dir / "records.jsonl"
    for bad, needle in ((b"[" * DEPTH + b"]" * DEPTH, "records.jsonl:2: nested too deep"),
                        (b"\xff\xfe", "records.jsonl: not UTF-8 text")):
        path.write_bytes(json.dumps(first).encode() + b"\n" + bad + b"\n")
        line = one_line(*cli(capsys, "summarize", path)[::2])
        assert needle in line, line
