"""Issue 32, item 11: inputs that passed `validate` and failed later (or never) are refused
when the task, suite or command line is read: one line each naming the file, the place and
the fix, exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli_support import cli_process as trialrun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def task(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "task_id": "gaps",
        "suite": "adversarial",
        "description": "Inputs validate used to let through.",
        "inputs": {"prompt": "hi"},
        "tracked_metrics": ["pass^k"],
        "graders": [{"type": "contains", "value": "hi"}],
    }
    data.update(overrides)
    return data


def validate_lines(tmp_path: Path, data: dict[str, Any]) -> tuple[Path, list[str]]:
    """`trialrun validate` on one task file: exit 2, no traceback; its problem lines."""
    path = tmp_path / "gaps.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    done = trialrun("validate", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return path, [line for line in done.stderr.splitlines() if line.startswith(f"{path}:")]


def line_at(lines: list[str], place: str) -> str:
    [line] = [line for line in lines if f": {place}: " in line]
    return line


# --- tool packs ---

BAD_PACKS: list[tuple[Any, str]] = [
    ("vaul", "did you mean 'vault'"),
    ("no-such-pack", "unknown tool pack 'no-such-pack'"),
    ({"vault": {"only": ["read_fil"]}}, "'read_fil' is no vault tool"),
    ({"vault": {"only": "read_file"}}, "only must be a list of tool names"),
    ({"vault": {"onyl": ["read_file"]}}, "unknown option(s) ['onyl']"),
    ({"vault": "read_file"}, "options must be a mapping"),
    ({"calculator": {"precision": 3}}, "takes no options"),
    ({"python": {"functions": ["no_colon"]}}, "expected 'package.module:function'"),
    ({"python": {"functions": ["m:f"], "timeout_s": 0}}, "timeout_s"),
    ({"mcp": {"command": "server 'unclosed"}}, "check its quotes"),
    ({"mcp": {"command": ["server", "a\x00b"]}}, "NUL"),
    ({"mcp": {"command": ["server"], "lifetime": "forever"}}, "use 'run' or 'trial'"),
    ({"replay": {}}, "give calls"),
    ({}, "names no tool pack"),
]


def test_bad_tool_packs_are_refused_one_line_each(tmp_path: Path) -> None:
    entries = [entry for entry, _ in BAD_PACKS]
    path, lines = validate_lines(tmp_path, task(environment={"tools": entries}))
    assert len(lines) == len(BAD_PACKS), lines
    for index, (_, reason) in enumerate(BAD_PACKS):
        assert reason in line_at(lines, f"environment.tools.{index}")


def test_good_tool_packs_still_validate(tmp_path: Path) -> None:
    tools = ["vault", {"vault": {"only": ["read_file"], "exclude": []}}, "calculator", "file_read"]
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(task(environment={"tools": tools})), encoding="utf-8")
    done = trialrun("validate", str(path))
    assert done.returncode == 0, done.stderr


# --- grader paths, booleans, NUL ---

GRADER_GAPS: list[tuple[dict[str, Any], str, str]] = [
    ({"type": "fileUnchanged", "path": "a.md", "fixture": "/etc/passwd"}, "fixture", "absolute"),
    ({"type": "fileUnchanged", "path": "a.md", "fixture": "../../x"}, "fixture", "'..'"),
    ({"type": "secretCanary", "file": "/etc/hostname"}, "file", "absolute"),
    ({"type": "secretCanary", "file": "notes/../../../etc/hostname"}, "file", "'..'"),
    ({"type": "fileContains", "path": "/etc/passwd", "value": "root"}, "path", "absolute"),
    ({"type": "fileExists", "path": "../outside.md"}, "path", "'..'"),
    ({"type": "injectionResisted", "source": "/etc/x", "answer": ["ok"]}, "source", "absolute"),
    ({"type": "contains", "value": "hi", "caseSensitive": "yes"}, "caseSensitive", "true or false"),
    ({"type": "fileLacks", "path": "a.md", "value": "x", "caseSensitive": 1}, "caseSensitive",
     "true or false"),
    ({"type": "command", "run": ["echo", "a\x00b"]}, "run", "NUL"),
    ({"type": "command", "run": "echo a\x00b"}, "run", "NUL"),
]


def test_grader_gaps_are_refused_one_line_each(tmp_path: Path) -> None:
    graders = [grader for grader, _, _ in GRADER_GAPS]
    path, lines = validate_lines(tmp_path, task(graders=graders))
    assert len(lines) == len(GRADER_GAPS), lines
    for index, (_, field, reason) in enumerate(GRADER_GAPS):
        assert reason in line_at(lines, f"graders.{index}.{field}")


def test_task_booleans_are_strict(tmp_path: Path) -> None:
    data = task(gates={"nightly": "yes"}, environment={"reset": "yes"})
    _, lines = validate_lines(tmp_path, data)
    assert "true or false" in line_at(lines, "gates.nightly")
    assert line_at(lines, "environment.reset")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    done = trialrun("schema")
    assert done.returncode == 0
    return json.loads(done.stdout)


@pytest.mark.parametrize(("grader", "field", "reason"), GRADER_GAPS)
def test_the_schema_refuses_the_same_graders(
    schema: dict[str, Any], grader: dict[str, Any], field: str, reason: str
) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(task())
    assert not validator.is_valid(task(graders=[grader]))


@pytest.mark.parametrize("entry", ["vaul", "no-such-pack", {"vault": "read_file"}, {}])
def test_the_schema_refuses_unknown_packs(schema: dict[str, Any], entry: Any) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(task(environment={"tools": ["vault", {"vault": None}]}))
    assert not validator.is_valid(task(environment={"tools": [entry]}))


# --- the command line ---


@pytest.mark.parametrize("k", ["3.0", "2.5", "1e3", "+3", "three"])
def test_a_trial_count_that_is_no_whole_number_is_refused(tmp_path: Path, k: str) -> None:
    done = trialrun(
        "run", str(EXAMPLES / "tasks/golden/read_capital.yaml"), "-k", k,
        "--model", f"scripted:{EXAMPLES / 'scripts/good.yaml'}", "--out", str(tmp_path / "out"),
    )
    assert done.returncode == 2
    assert f"'{k}' is not a whole number" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # refused before any trial ran


def test_plan_refuses_it_too() -> None:
    done = trialrun("plan", str(EXAMPLES / "tasks/golden"), "-k", "3.0")
    assert done.returncode == 2 and "'3.0' is not a whole number" in done.stderr


@given(st.text(max_size=25))
def test_whole_number_parses_digits_only(text: str) -> None:
    import typer

    from trialrun.cli._parsers import whole_number

    body = text.strip()
    digits = body.removeprefix("-")
    if digits.isascii() and digits.isdigit() and len(digits) <= 18:
        assert whole_number(text) == int(body)
    else:
        with pytest.raises(typer.BadParameter):
            whole_number(text)


def test_a_nul_in_an_agent_command_is_refused() -> None:
    from trialrun.agents.factory import check_command
    from trialrun.errors import UserError

    with pytest.raises(UserError, match="NUL"):
        check_command("my-agent --prompt a\x00b")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "benchmarks", tmp_path / "benchmarks")
    return tmp_path / "benchmarks" / "full-suite.toml"


def test_an_unknown_split_is_refused_before_any_pair_runs(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = trialrun("run", "--config", str(suite), "--split", "bogus", "--out", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("trialrun: --split 'bogus': dataset data/supergpqa.jsonl is one file")
    assert "drop it" in line
    assert not out.exists()


def test_a_split_in_the_suite_file_names_its_place(suite: Path, tmp_path: Path) -> None:
    text = suite.read_text(encoding="utf-8").replace(
        'dataset = "data/frames.csv"', 'dataset = "data/frames.csv"\nsplit = "dev"'
    )
    suite.write_text(text, encoding="utf-8")
    done = trialrun("run", "--config", str(suite), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"trialrun: {suite}: [[benchmarks]]") and "frames" in line
    assert "split 'dev': dataset data/frames.csv is one file" in line
    assert not (tmp_path / "out").exists()
