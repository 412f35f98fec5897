"""The OpenJarvis tool packs end to end: a task file naming them, run through the CLI by
a scripted model calling each with OpenJarvis's argument names; an unknown tool (e.g.
`browser`) is one line naming the tools that exist, in a task file, a benchmark suite
and the agent loop."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trialrun.benchmarks import expand, load_suite
from trialrun.cli import app
from trialrun.errors import UserError
from trialrun.rundir import RunDir
from trialrun.sandbox import jail_available

DATA = Path(__file__).parent / "data" / "openjarvis_tools"
OPENJARVIS_TOOLS = [
    "code_interpreter", "file_write", "memory_search", "memory_store", "shell_exec", "think",
    "web_search",
]  # fmt: skip
runner = CliRunner()


def test_the_task_validates() -> None:
    result = runner.invoke(app, ["validate", str(DATA / "research.yaml"), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["problems"] == [] and [t["task_id"] for t in doc["tasks"]] == ["openjarvis-tools"]


@pytest.mark.skipif(not jail_available(), reason="bwrap does not work here")
def test_a_scripted_model_uses_every_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = shutil.copytree(DATA, tmp_path / "suite")
    monkeypatch.chdir(tmp_path)  # no trialrun.toml: web_search has no provider
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["run", str(suite / "research.yaml"), "--model", f"scripted:{suite / 'solve.yaml'}",
         "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    [run_dir] = [p for p in out.iterdir() if p.is_dir()]
    reader = RunDir.open(run_dir)
    lines = reader.results()
    assert len(lines) == 2
    for line in lines:
        assert line.solve is True, line.verdicts
        assert reader.transcript(line).tool_results == [
            "Thought recorded (36 characters).",
            "Stored memory entry 1 (28 characters).",
            "1. [1.00] (source: calc) the product of 6 and 7 is 42",  # this trial's only
            "=== STDOUT ===\n42",
            "Wrote 3 bytes to out/answer.txt",
            "=== STDOUT ===\n42",
            'web_search: no provider configured; set [tools.web_search] provider = "searxng" '
            'and url = "http://HOST:PORT/search" in trialrun.toml',
            "unknown tool 'browser'; available: think, memory_store, memory_search, "
            "code_interpreter, file_write, shell_exec, web_search",
        ]


def test_an_unknown_tool_in_a_task_file_names_the_tools(tmp_path: Path) -> None:
    task = (DATA / "research.yaml").read_text().replace("[think,", "[think, browser,")
    (tmp_path / "t.yaml").write_text(task)
    result = runner.invoke(app, ["validate", str(tmp_path / "t.yaml")])
    assert result.exit_code == 2
    [line] = [x for x in result.output.splitlines() if "browser" in x]
    where, rest = line.split(" (known: ")
    known, see = rest.rsplit(") (see ", 1)
    assert where.endswith(
        ": environment.tools.1: unknown tool pack 'browser'; did you mean 'browser_navigate'?"
    )
    assert see == "docs/reference/tasks.md#environment-tools)"
    assert set(OPENJARVIS_TOOLS) <= set(known.split(", "))


def test_a_benchmark_suite_takes_the_tools_and_names_the_rest(tmp_path: Path) -> None:
    base = (
        "[meta]\nname = 's'\n[[models]]\nname = 'm.yaml'\nprovider = 'scripted'\n"
        "[[benchmarks]]\nname = 'supergpqa'\nbackend = 'jarvis-agent'\n"
    )
    path = tmp_path / "suite.toml"
    path.write_text(base + f"tools = {json.dumps(OPENJARVIS_TOOLS)}\n")
    (pair,) = expand(load_suite(path))
    assert list(pair.tools) == OPENJARVIS_TOOLS
    path.write_text(base + "tools = ['think', 'browser']\n")
    with pytest.raises(UserError) as info:
        expand(load_suite(path))
    message = str(info.value)
    assert "tools: unknown tool 'browser'; known: " in message and "\n" not in message
    assert all(name in message for name in OPENJARVIS_TOOLS)
