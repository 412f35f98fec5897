"""Every subcommand reads a damaged run folder the same way (one reader: `RunDir.read`).

For each damage, `summarize`, `show`, `compare`, `gate merge`, `bless`, `report --markdown`
and `regrade` run through the CLI on their own copy of the damaged folder and must agree:
the same exit code (2 for a refusal), the same first stderr line, no traceback, and
`bless` writes nothing. A torn last line (a killed run) is accepted by all of them.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_support import cli
from trialrun.cli import main

TASK = """
task_id: {tid}
suite: golden
tier: T1
description: read a note and answer
inputs: {{prompt: What is the secret word in note.md?}}
environment: {{fixture: basic}}
graders:
  - {{type: expectedTools, tools: [read_file]}}
  - {{type: contains, value: pineapple}}
tracked_metrics: [pass^k]
"""
SCRIPT = """
default:
  - tool_calls: [{name: read_file, arguments: {path: note.md}}]
  - content: The secret word is pineapple.
"""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished run (2 tasks × k=3, all solved) and a baseline blessed from it."""
    root = tmp_path_factory.mktemp("one-reading")
    suite = root / "suite"
    (suite / "fixtures" / "basic").mkdir(parents=True)
    (suite / "fixtures" / "basic" / "note.md").write_text("The secret word is pineapple.\n")
    for tid in ("read-a", "read-b"):
        (suite / f"{tid}.yaml").write_text(TASK.format(tid=tid))
    script = root / "good.yaml"
    script.write_text(SCRIPT)
    old = sys.argv
    sys.argv = ["trialrun", "run", str(suite), "-m", f"scripted:{script}", "-k", "3",
                "--out", str(root / "out"), "--json"]
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        sys.argv = old
    assert info.value.code == 0
    (run,) = (root / "out").iterdir()
    sys.argv = ["trialrun", "bless", str(run), "--baselines", str(root / "baselines")]
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        sys.argv = old
    (baseline,) = (root / "baselines").iterdir()
    return {"run": run, "baseline": baseline, "root": root}


def _lines(run: Path) -> list[bytes]:
    return (run / "results.jsonl").read_bytes().splitlines(keepends=True)


def _edit_line(index: int, edit: Callable[[dict], str | bytes]) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        lines = _lines(run)
        new = edit(json.loads(lines[index]))
        lines[index] = (new.encode() if isinstance(new, str) else new) + b"\n"
        (run / "results.jsonl").write_bytes(b"".join(lines))

    return damage


def _insert(index: int, raw: bytes) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        lines = _lines(run)
        lines.insert(index, raw + b"\n")
        (run / "results.jsonl").write_bytes(b"".join(lines))

    return damage


def _manifest(**changes: object) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        data = json.loads((run / "run.json").read_text())
        (run / "run.json").write_text(json.dumps({**data, **changes}))

    return damage


def _with(**changes: object) -> Callable[[dict], str]:
    return lambda item: json.dumps({**item, **changes})


def _nan_latency(item: dict) -> str:
    item["latency_s"] = "@NAN@"
    return json.dumps(item).replace('"@NAN@"', "NaN")


def _torn(run: Path) -> None:
    with open(run / "results.jsonl", "ab") as fh:
        fh.write(b'{"task_id": "read-a", "model": "scr')


# damage -> (how, a piece of the one line every subcommand must print; None: accepted)
DAMAGES: dict[str, tuple[Callable[[Path], None], str | None]] = {
    "trial >= k": (_edit_line(1, _with(trial=7)), "results.jsonl:2: trial 7 is out of range"),
    "trial -1": (_edit_line(1, _with(trial=-1)), "results.jsonl:2: trial must be an integer"),
    "missing run.json": (lambda run: (run / "run.json").unlink(), "run.json: not found"),
    "NaN latency": (_edit_line(1, _nan_latency), "results.jsonl:2: latency_s is NaN"),
    "task_files: 5": (_manifest(task_files=5), "run.json: task_files must be a list"),
    "line not an object": (_insert(1, b"[1, 2]"), "results.jsonl:2: a results line must be"),
    "bad UTF-8 in a line": (_insert(1, b'{"task_id": "\xff"}'), "results.jsonl:2: not UTF-8"),
    "duplicate line": (
        lambda run: _insert(3, _lines(run)[1].rstrip(b"\n"))(run),
        "results.jsonl:4: duplicate of line 2",
    ),
    "torn last line": (_torn, None),
}


def _commands(run: Path, base: dict[str, Path], work: Path) -> dict[str, list[str | Path]]:
    return {
        "summarize": ["summarize", run],
        "show": ["show", run, "read-a", "0"],
        "compare": ["compare", run, "--baseline", base["baseline"]],
        "gate merge": ["gate", "merge", run, "--baseline", base["baseline"]],
        "bless": ["bless", run, "--baselines", work / "blessed"],
        "report --markdown": ["report", run, "--markdown", work / "report.md"],
        "regrade": ["regrade", run],
    }


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_every_subcommand_reads_a_damaged_run_the_same_way(
    damage: str, base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no trialrun.toml from the repository
    # the small run has no adversarial or failure_replays task: allowed, so `gate merge`
    # passes on the intact folder
    (tmp_path / "trialrun.toml").write_text("[gates.merge]\nallow_missing = true\n")
    how, needle = DAMAGES[damage]
    outcomes: dict[str, tuple[int, str]] = {}
    for name in _commands(base["run"], base, tmp_path):
        work = tmp_path / name.replace(" ", "_")
        run = work / "run"
        shutil.copytree(base["run"], run)
        how(run)
        code, _, err = cli(capsys, *_commands(run, base, work)[name])
        assert "Traceback" not in err, (name, err)
        first = err.splitlines()[0] if err.strip() else ""
        outcomes[name] = (code, first.replace(str(run), "RUN"))
        if needle is not None:
            assert not (work / "blessed").exists() or not any((work / "blessed").iterdir())
            assert not (work / "report.md").exists()
    if needle is None:
        # accepted by all: the same exit code as on the intact folder (0), nothing refused
        assert {name: code for name, (code, _) in outcomes.items()} == dict.fromkeys(outcomes, 0)
        return
    expected = next(iter(outcomes.values()))
    assert outcomes == dict.fromkeys(outcomes, expected)
    code, line = expected
    assert code == 2 and line.startswith("trialrun: ") and needle in line, line


def test_the_torn_line_is_named_in_the_reader_warnings(base: dict[str, Path], tmp_path: Path):
    from trialrun.rundir import RunDir

    run = tmp_path / "run"
    shutil.copytree(base["run"], run)
    _torn(run)
    contents = RunDir.open(run).read()
    assert len(contents.results) == 6
    (warning,) = contents.warnings
    assert "results.jsonl:7: torn last line ignored" in warning


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["judge", "extract", "RUN", "-o", "/proc/nope.json"], "cannot write /proc/nope.json: "),
        (["regrade", "RUN", "--out", "/proc/nope"], "--out /proc/nope: cannot write ("),
        (["report", "RUN", "--markdown", "/proc/nope.md"], "cannot write /proc/nope.md: "),
        (["report", "RUN", "--junit", "/proc/nope.xml"], "cannot write /proc/nope.xml: "),
    ],
)
def test_an_unwritable_output_path_is_one_line(
    base: dict[str, Path], capsys, args: list[str], start: str
) -> None:
    argv = [base["run"] if a == "RUN" else a for a in args]
    code, out, err = cli(capsys, *argv)
    assert code == 2 and out == "" and "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith(f"trialrun: {start}")
    assert line.endswith("; choose a writable path")


def test_regrade_reads_odd_transcripts_and_refuses_odd_lines(
    base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    shutil.copytree(base["run"], run)
    for path in (run / "transcripts").rglob("*.jsonl"):  # offsets kept: same-length lines
        odd = []
        for raw in path.read_bytes().splitlines():
            data = json.loads(raw)
            text = json.dumps({**data, "messages": "not a list", "turns": 5}).encode()
            assert len(text) <= len(raw)  # the messages list was longer than its stand-in
            odd.append(text.ljust(len(raw)))  # JSON allows trailing blanks
        path.write_bytes(b"".join(x + b"\n" for x in odd))
    code, _, err = cli(capsys, "regrade", run)
    assert code == 0 and "Traceback" not in err, err  # a transcript is evidence: read leniently
    odd = {"grader": "pairwise", "passed": None, "details": {"type": "pairwise", "outcomes": [1]}}
    _edit_line(0, lambda item: json.dumps({**item, "verdicts": [odd]}))(run)
    code, _, err = cli(capsys, "judge", "bias", run, "--json")
    assert code == 0 and "Traceback" not in err, err
    _edit_line(0, lambda item: json.dumps(
        {**item, "tool_calls": [{"name": "read_file", "arguments": "note.md"}]}))(run)
    for args in (["regrade", run], ["judge", "bias", run], ["summarize", run]):
        code, _, err = cli(capsys, *args)
        assert code == 2 and "Traceback" not in err, err
        assert "results.jsonl:1: tool_calls[0].arguments must be an object" in err


def test_resume_after_a_task_k_changed_is_refused_before_any_trial(
    base: dict[str, Path], tmp_path: Path, capsys, monkeypatch
) -> None:
    """The reader bounds trials by run.json's k: a resume must not append trials past it."""
    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "suite"
    shutil.copytree(base["root"] / "suite", suite)
    script = base["root"] / "good.yaml"
    code, _, err = cli(capsys, "run", suite / "read-a.yaml", "-m", f"scripted:{script}",
                       "--out", tmp_path / "out", "--json")
    assert code == 0, err
    (run,) = (tmp_path / "out").iterdir()
    with open(suite / "read-a.yaml", "a") as fh:
        fh.write("trials: {k: 5}\n")  # the task's own k (the run had no -k): 3 → 5
    before = (run / "results.jsonl").read_bytes()
    code, _, err = cli(capsys, "run", "--resume", run)
    assert code == 2 and "Traceback" not in err
    (line,) = err.splitlines()
    assert "--resume" in line and "read-a" in line and "k = 5" in line and "k = 3" in line
    assert (run / "results.jsonl").read_bytes() == before
