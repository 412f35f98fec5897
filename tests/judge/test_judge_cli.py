"""End to end: `trialrun run` with a scripted judge, then extract, bias and regrade."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli_support import cli_process

TASKS = {
    "greet.yaml": """
task_id: greet
suite: open_ended
description: greets
inputs: {prompt: Say hello to the user.}
environment: {sandbox: none, tools: []}
graders:
  - type: judge
    criteria: The response greets the user.
  - {type: contains, value: hello, caseSensitive: false}
tracked_metrics: [pass@k]
trials: {k: 2}
""",
    "bye.yaml": """
task_id: bye
suite: open_ended
description: says bye
inputs: {prompt: Say goodbye.}
environment: {sandbox: none, tools: []}
graders:
  - type: judge
    criteria: The response says goodbye.
tracked_metrics: [pass@k]
trials: {k: 2}
""",
    "compare.yaml": """
task_id: compare
suite: open_ended
description: pairwise and rubric
inputs: {prompt: Name the capital of France.}
environment: {sandbox: none, tools: []}
graders:
  - {type: pairwise, reference: Paris is the capital of France.}
  - {type: llmRubric, rubric: Correct and concise., threshold: 4}
tracked_metrics: [pass@k]
trials: {k: 1}
""",
    "write.yaml": """
task_id: write
suite: golden
description: writes a note
inputs: {prompt: Write note.md saying hi.}
graders:
  - {type: fileExists, path: note.md}
  - {type: judge, criteria: Says the note was written.}
tracked_metrics: [pass^k]
trials: {k: 1}
""",
}

AGENT = {
    "tasks": {
        "greet": [{"content": "Hello there!"}],
        "bye": [{"content": "Goodbye, friend."}],
        "compare": [{"content": "Paris."}],
        "write": [
            {
                "tool_calls": [
                    {"name": "write_file", "arguments": {"path": "note.md", "content": "hi"}}
                ]
            },
            {"content": "I wrote note.md."},
        ],
    }
}

JUDGE = {
    "tasks": {
        "greet": [{"content": "YES"}],
        # garbage, then garbage on the retry → undetermined
        "bye": [{"content": "it depends"}, {"content": "dunno"}],
        # pairwise: prefers position A in both orders → one win → correct, a position flip;
        # the same reply also satisfies the rubric's `SCORE: n` last line (same task id)
        "compare": [{"content": "A is better. [[A>B]]\nSCORE: 4"}],
        "compare/swapped": [{"content": "[[A>B]]"}],
        "write": [{"content": "YES"}],
    },
    "default": [{"content": "NO"}],
}


def trialrun(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRIALRUN_JUDGE_CACHE_DIR": str(cwd / "cache"), "COLUMNS": "200"}
    return cli_process(*args, cwd=cwd, env=env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tasks").mkdir()
    for name, text in TASKS.items():
        (tmp_path / "tasks" / name).write_text(text, encoding="utf-8")
    (tmp_path / "agent.json").write_text(json.dumps(AGENT), encoding="utf-8")
    (tmp_path / "judge.json").write_text(json.dumps(JUDGE), encoding="utf-8")
    return tmp_path


def run(project: Path, *extra: str) -> Path:
    proc = trialrun(
        "run",
        "tasks",
        "-m",
        "scripted:agent.json",
        "--judge",
        "scripted:judge.json",
        "--out",
        "results",
        *extra,
        cwd=project,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    runs = sorted((project / "results").iterdir())
    return runs[-1]


def lines(run_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines() if x]


def by_task(run_dir: Path) -> dict[str, dict]:
    summary = json.loads((run_dir / "summary.json").read_text())
    return {row["task_id"]: row for row in summary["tasks"]}


def test_run_with_scripted_judge_end_to_end(project: Path) -> None:
    run_dir = run(project)
    rows = by_task(run_dir)
    # greet: judge YES both trials → solved
    assert rows["greet"]["solved"] == 2 and rows["greet"]["solve_k"] == 1.0
    # bye: the judge never gives a verdict → undetermined, never solved, left out of solve^k
    assert rows["bye"]["undetermined"] == 2 and rows["bye"]["solved"] == 0
    assert rows["bye"]["solve_k"] is None and rows["bye"]["pass_k"] == 1.0
    bye = [x for x in lines(run_dir) if x["task_id"] == "bye"]
    assert all(x["solve"] is None and x["pass"] is True for x in bye)
    details = bye[0]["verdicts"][0]["details"]
    assert details["raw_replies"] == ["it depends", "dunno"] and "judge_error" in details
    # compare: pairwise correct (a win in one order); rubric score 4 ≥ threshold 4
    comp = next(x for x in lines(run_dir) if x["task_id"] == "compare")
    pw = comp["verdicts"][0]
    assert pw["passed"] is True and pw["details"]["position_flip"] is True
    assert pw["details"]["verdicts"] == {"response_first": "[[A>B]]", "reference_first": "[[A>B]]"}
    rubric = comp["verdicts"][1]
    assert rubric["passed"] is True and rubric["details"]["score"] == 4
    assert rubric["details"]["reasoning"] == "A is better. [[A>B]]"


def test_no_judge_means_skipped_not_solved(project: Path) -> None:
    proc = trialrun(
        "run",
        "tasks/greet.yaml",
        "-m",
        "scripted:agent.json",
        "--out",
        "results",
        "--json",
        cwd=project,
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = sorted((project / "results").iterdir())[-1]
    line = lines(run_dir)[0]
    assert line["verdicts"][0]["passed"] is None and line["solve"] is None
    assert "no judge model configured" in line["verdicts"][0]["details"]["judge_skipped"]
    assert by_task(run_dir)["greet"]["undetermined"] == 2


def test_extract_bias_and_regrade(project: Path) -> None:
    run_dir = run(project)
    gold = project / "gold.json"
    proc = trialrun("judge", "extract", str(run_dir), "-o", str(gold), cwd=project)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(gold.read_text())
    assert doc["version"] == 1 and doc["source"]["provider"] == "scripted"
    assert doc["source"]["run_id"] == run_dir.name
    # judge verdicts only (greet ×2, bye ×2, write ×1), not pairwise/rubric
    assert sorted(t["task_id"] for t in doc["tuples"]) == ["bye", "bye", "greet", "greet", "write"]
    greet = next(t for t in doc["tuples"] if t["task_id"] == "greet")
    assert greet["user_message"] == "Say hello to the user." and greet["response"] == "Hello there!"
    assert greet["criteria"] == "The response greets the user."
    assert greet["automated_verdict"] is True and greet["human_label"] is None
    bye = next(t for t in doc["tuples"] if t["task_id"] == "bye")
    assert bye["automated_verdict"] is None and "retry" in bye["judge_error"]
    assert len({t["id"] for t in doc["tuples"]}) == 5

    # labels are human work: no overwrite without --force
    gold.write_text(gold.read_text().replace('"human_label": null', '"human_label": "YES"'))
    before = gold.read_text()
    proc = trialrun("judge", "extract", str(run_dir), "-o", str(gold), cwd=project)
    assert proc.returncode == 2 and "--force" in proc.stderr and "Traceback" not in proc.stderr
    assert gold.read_text() == before
    proc = trialrun("judge", "extract", str(run_dir), "-o", str(gold), "--force", cwd=project)
    assert proc.returncode == 0 and '"human_label": "YES"' not in gold.read_text()

    # bias: one pairwise verdict, flipped; same-family warning (scripted judges scripted)
    proc = trialrun("judge", "bias", str(run_dir), "--json", cwd=project)
    assert proc.returncode == 0 and proc.stderr == ""
    report = json.loads(proc.stdout)
    assert report["pairwise"]["n"] == 1 and report["pairwise"]["flip_rate"] == 1.0
    assert report["pairwise"]["position_a_preferred_rate"] == 1.0
    short = report["length_buckets"][0]
    assert short["bucket"] == "<200" and short["n"] == 3 and short["yes"] == 3
    assert any("same-family" in w for w in report["warnings"])

    # regrade with a judge that now answers bye: solve becomes True, summary recomputed
    fixed = project / "judge2.json"
    fixed.write_text(
        json.dumps({**JUDGE, "tasks": {**JUDGE["tasks"], "bye": [{"content": "YES"}]}}),
        encoding="utf-8",
    )
    proc = trialrun(
        "regrade", str(run_dir), "--judge", "scripted:judge2.json", "--json", cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    first = json.loads(proc.stdout)
    assert first["judge_calls"] > 0 and first["solve_changed"] == 2
    rows = by_task(run_dir)
    assert rows["bye"]["solved"] == 2 and rows["bye"]["undetermined"] == 0
    assert rows["bye"]["solve_k"] == 1.0
    # no kept workspace: the state grader keeps its previous verdict and says so
    write = next(x for x in lines(run_dir) if x["task_id"] == "write")
    assert write["verdicts"][0]["passed"] is True
    assert "kept previous verdict" in write["verdicts"][0]["details"]["regrade"]
    assert first["kept_verdicts"] == 1

    # a second regrade costs no judge call: every judge verdict comes from the cache
    proc = trialrun(
        "regrade", str(run_dir), "--judge", "scripted:judge2.json", "--json", cwd=project
    )
    second = json.loads(proc.stdout)
    assert second["judge_calls"] == 0 and second["judge_cached"] > 0
    for line in lines(run_dir):
        for verdict in line["verdicts"]:
            if "judge_model" in verdict["details"]:
                assert verdict["details"]["cached"] is True, verdict

    # regrade --out writes a copy and leaves the original alone; without --judge it uses
    # the judge that graded the results last
    out = project / "regraded"
    proc = trialrun(
        "regrade", str(run_dir), "--out", str(out), "--judge", "scripted:judge.json", cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    assert by_task(out)["bye"]["undetermined"] == 2  # the original judge's garbage again
    assert by_task(run_dir)["bye"]["solved"] == 2
    assert (out / "run.json").is_file() and (out / "transcripts").is_dir()
    proc = trialrun("regrade", str(out), "--json", cwd=project)
    assert json.loads(proc.stdout)["judge"] == "scripted:judge.json"
    proc = trialrun("regrade", str(run_dir), "--out", str(out), cwd=project)
    assert proc.returncode == 2 and "already exists" in proc.stderr


def test_regrade_uses_kept_workspace(project: Path) -> None:
    run_dir = run(project, "--keep-artifacts", "--task", "write")
    kept = run_dir / "workspaces" / "scripted-agent.json" / "write-0"
    assert (kept / "note.md").is_file()
    (kept / "note.md").unlink()  # the state grader must see the kept workspace
    proc = trialrun("regrade", str(run_dir), "--json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kept_verdicts"] == 0
    line = lines(run_dir)[0]
    assert line["verdicts"][0]["passed"] is False and line["solve"] is False
    assert by_task(run_dir)["write"]["solved"] == 0


def test_regrade_errors(project: Path, tmp_path: Path) -> None:
    proc = trialrun("regrade", str(tmp_path / "nope"), cwd=project)
    assert proc.returncode == 2 and "not a run directory (no run.json)" in proc.stderr
    run_dir = run(project, "--task", "greet")
    proc = trialrun("regrade", str(run_dir), "--judge", "openai:gpt-4o-latest", cwd=project)
    assert proc.returncode == 2 and "pinned" in proc.stderr and "Traceback" not in proc.stderr
    # task files not reachable from the cwd → a one-line fix
    proc = trialrun("regrade", str(run_dir), cwd=tmp_path / "results")
    assert proc.returncode == 2 and "--tasks" in proc.stderr
