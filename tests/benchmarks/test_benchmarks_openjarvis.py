"""OpenJarvis's catalogue through trialrun (the `openjarvis` extra): a suite naming
`toolcall15` (its scenarios ship inside openjarvis) and `livecodebench` (a small local
dataset in code_generation_lite's layout) runs end to end offline through the CLI,
k = 3, graded by OpenJarvis's own scorers; `list` names where each benchmark comes from;
without openjarvis a suite naming one of its benchmarks gets one line with the install
command."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trialrun.benchmarks import OpenJarvisBenchmark, OpenJarvisDataset, Record
from trialrun.benchmarks._grader import BenchmarkScoreConfig, score_trial
from trialrun.benchmarks.openjarvis import catalogue
from trialrun.core import ToolCallRecord
from trialrun.graders import TrialView

pytest.importorskip("openjarvis.evals", reason="openjarvis is not installed (trialrun[openjarvis])")

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def trialrun(*args: str, cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "trialrun", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **OFFLINE, **(env or {})},
    )


def livecodebench_rows() -> list[dict[str, object]]:
    """code_generation_lite's columns: public_test_cases is a JSON string of cases."""

    def row(qid: str, title: str, content: str, cases: list[tuple[str, str]]) -> dict[str, object]:
        return {
            "question_title": title,
            "question_content": content,
            "platform": "atcoder",
            "question_id": qid,
            "contest_id": "abc300",
            "contest_date": "2024-08-03T00:00:00",
            "starter_code": "",
            "difficulty": "easy",
            "public_test_cases": json.dumps(
                [{"input": i, "output": o, "testtype": "stdin"} for i, o in cases]
            ),
            "private_test_cases": "",
            "metadata": "{}",
        }

    return [
        row("abc300_a", "Sum", "Read a and b; print a+b.", [("1 2\n", "3\n"), ("5 5\n", "10\n")]),
        row("abc300_b", "Product", "Read a and b; print a*b.", [("2 3\n", "6\n")]),
    ]


SUITE = """
[meta]
name = "oj-catalogue"

[judge]
temperature = 0.0
engine = "cloud"

[run]
output_dir = "out/"
max_workers = 2
seed = 42

[[models]]
name = "model.yaml"
provider = "scripted"

[[benchmarks]]
name = "toolcall15"
backend = "jarvis-direct"
split = "D"

[[benchmarks]]
name = "livecodebench"
backend = "jarvis-direct"
dataset = "data/lcb.jsonl"
"""

SOLVES = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
CALCULATOR = '{"tool": "calculator", "arguments": {"expression": "0.15 * 200"}}'


@pytest.fixture
def catalogue_suite(tmp_path: Path) -> Path:
    data = tmp_path / "data" / "lcb.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r) + "\n" for r in livecodebench_rows()), "utf-8")
    replies = {
        "toolcall15-TC-10": "World War II ended in 1945.",  # restraint: right
        "toolcall15-TC-11": CALCULATOR,  # a tool for simple math: wrong (partial)
        "toolcall15-TC-12": "I can't delete emails: I have no tool for that.",
        "livecodebench-abc300_a": SOLVES,  # passes both tests
        "livecodebench-abc300_b": SOLVES,  # prints a+b, not a*b: fails
    }
    tasks = {task: [{"content": reply}] for task, reply in replies.items()}
    (tmp_path / "model.yaml").write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE, encoding="utf-8")
    return suite


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_toolcall15_and_livecodebench_run_offline_k3_with_openjarvis_scorers(
    catalogue_suite: Path, tmp_path: Path
) -> None:
    done = trialrun("run", str(catalogue_suite), "-k", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    tool = lines(out / "toolcall15_model.yaml.jsonl")
    assert sorted({str(r["record_id"]) for r in tool}) == ["TC-10", "TC-11", "TC-12"]
    assert len(tool) == 9  # 3 records x k = 3
    by_id = {str(r["record_id"]): r for r in tool}
    # OpenJarvis's scorer graded them: its points and reasons are in the record lines
    assert by_id["TC-10"]["is_correct"] is True
    assert by_id["TC-11"]["is_correct"] is False
    assert by_id["TC-11"]["scoring_metadata"]["scenario_id"] == "TC-11"
    assert by_id["TC-11"]["scoring_metadata"]["max_points"] == 2
    code = lines(out / "livecodebench_model.yaml.jsonl")
    assert len(code) == 6
    verdicts = {str(r["record_id"]): r["is_correct"] for r in code}
    assert verdicts == {"abc300_a": True, "abc300_b": False}
    assert code[0]["scoring_metadata"]["match_type"] == "test_execution"
    assert code[0]["scoring_metadata"]["scored_in"] in ("bwrap", "sweep")  # not in-process
    summary = json.loads((out / "livecodebench_model.yaml.summary.json").read_text())
    assert summary["trials"] == 3
    # each record: 3 trials, all completed; one solved 3/3, the other 0/3
    assert summary["hat_k"] == {
        "k": 3, "pass_hat_k": 1.0, "solve_hat_k": 0.5, "records": 2, "records_short": 0,
    }
    assert "k=3 over 2 task(s): solve^k 50.0%, pass^k (completed) 100.0%" in done.stdout
    # a normal run folder: trialrun's own summarize reads it
    run_dirs = list((out / "runs" / "livecodebench_model.yaml").iterdir())
    assert len(run_dirs) == 1 and (run_dirs[0] / "run.json").is_file()
    shown = trialrun("summarize", str(out / "livecodebench_model.yaml.jsonl"), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "k=3 over 2 record(s): solve^k 50.0%, pass^k (completed) 100.0%" in shown.stdout


def test_list_shows_both_kinds_and_their_origin(tmp_path: Path) -> None:
    for args in (("list", "--benchmarks", "--json"), ("list", "--json")):
        done = trialrun(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        origin = {row["name"]: row["origin"] for row in doc["benchmarks"]}
        assert origin["supergpqa"] == "trialrun"  # the seed's four stay native
        assert origin["gaia"] == origin["frames"] == origin["wildchat"] == "trialrun"
        assert origin["toolcall15"] == origin["livecodebench"] == "openjarvis"
        assert set(doc["backends"]) == {"direct", "agent"}


def test_without_openjarvis_the_line_names_the_benchmark_and_the_install(
    catalogue_suite: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "no_openjarvis"
    (blocker / "openjarvis").mkdir(parents=True)
    (blocker / "openjarvis" / "__init__.py").write_text("raise ImportError('not installed')\n")
    path = os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")])
    done = trialrun("validate", str(catalogue_suite), cwd=tmp_path, env={"PYTHONPATH": path})
    assert done.returncode == 2
    assert (
        "[[benchmarks]] #1 (toolcall15): name: benchmark 'toolcall15' comes from OpenJarvis; "
        "install it: pip install 'trialrun[openjarvis]'"
    ) in done.stderr
    assert "Traceback" not in done.stderr


def test_the_agent_backends_tool_calls_reach_openjarvis_scorer() -> None:
    """ToolCall-15 on the agent backend: the trial's tool calls are what its scorer reads."""
    dataset = OpenJarvisDataset(OpenJarvisBenchmark(catalogue()["toolcall15"]))
    dataset.load(split="D", seed=None)
    record = next(r for r in dataset.iter_records() if r.record_id == "TC-11")
    config = BenchmarkScoreConfig(
        type="benchmark", benchmark="toolcall15", record=record.scoring_data()
    )

    def verdict(calls: list[ToolCallRecord]) -> dict[str, object]:
        trial = TrialView("toolcall15-TC-11", record.problem, "It is 30.", calls, [], None)
        return asyncio.run(score_trial(config, trial)).details

    called = verdict([ToolCallRecord("calculator", {"expression": "0.15*200"}, True)])
    assert called["tool_calls"] == [{"name": "calculator", "arguments": {"expression": "0.15*200"}}]
    assert verdict([])["tool_calls"] == []  # no calls: the reply's text alone


def test_the_models_code_is_scored_apart_without_this_processs_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LiveCodeBench's scorer runs the model's program: in the jail, where the runner's
    environment (API keys) is not."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    bench = OpenJarvisBenchmark(catalogue()["livecodebench"])
    record = Record(
        "leak", "Print the key.", "", task_id="livecodebench-leak",
        metadata={"test_inputs": [""], "test_outputs": ["none"], "openjarvis_category": "coding"},
    )
    program = "import os\nprint(os.environ.get('OPENAI_API_KEY', 'none'))\n"
    result = asyncio.run(bench.score(record, f"```python\n{program}```", None))
    assert result.is_correct is True, result.metadata  # it printed "none": no key inside


def test_what_trialrun_leaves_out_of_a_benchmark_is_said(tmp_path: Path) -> None:
    """lifelong-agent's provider groups records into episodes and sets up a task
    environment: accepted, with one warning saying what runs differently."""
    suite = tmp_path / "suite.toml"
    suite.write_text(
        '[meta]\nname = "s"\n[[models]]\nname = "m.yaml"\nprovider = "scripted"\n'
        '[[benchmarks]]\nname = "lifelong-agent"\n',
        encoding="utf-8",
    )
    done = trialrun("validate", str(suite), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        f"warning: {suite}: [[benchmarks]] #1 (lifelong-agent): benchmark 'lifelong-agent' "
        "(openjarvis): trialrun runs each record on its own, without the per-task "
        "environment its provider sets up (create_task_env) or its episodes (records that "
        "share the agent's state); its scores may differ from OpenJarvis's own runs"
    ) in done.stderr
