"""The example suite end to end through the CLI: scripted models, CI outputs, baselines."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli_support import cli_process as trialrun

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GOOD = f"scripted:{EXAMPLES / 'scripts' / 'good.yaml'}"
BAD = f"scripted:{EXAMPLES / 'scripts' / 'bad.yaml'}"
# 8 native tasks + 2 Scribe ones + fix-auth-bypass, prompt-injection_tool-misuse,
# incident-looping-retries, support-chat_resolution
N_TASKS = 14


def run_json(*args: str, cwd: Path) -> dict:
    proc = trialrun("run", *args, "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path]:
    work = tmp_path_factory.mktemp("examples")
    junit = work / "junit.xml"
    doc = run_json(
        str(EXAMPLES), "--model", GOOD, "--out", str(work / "results"),
        "--junit", str(junit), "--markdown", str(work / "summary.md"), cwd=work,
    )
    return work, doc, junit


def test_good_script_solves_what_it_solves_and_names_the_failure(good_run) -> None:
    _, doc, _ = good_run
    rows = {r["task_id"]: r for r in doc["tasks"]}
    assert len(rows) == N_TASKS
    # good.yaml answers count-recipes wrongly on purpose: 0/3, failed on its regex grader.
    assert rows["count-recipes"]["solved"] == 0
    assert rows["count-recipes"]["solve_k"] == 0.0
    assert "regex" in json.dumps(rows["count-recipes"]["failed_graders"])
    # The judge task has no judge configured: undetermined, never solved.
    assert rows["summarize-recipes"]["undetermined"] == 3
    assert rows["summarize-recipes"]["solve_k"] is None
    # so is the multi-turn chat's rubric (its address check passes)
    assert rows["support-chat_resolution"]["undetermined"] == 3
    assert rows["support-chat_resolution"]["failed_graders"] == {}
    solved = [t for t, r in rows.items() if r["solve_k"] == 1.0]
    assert len(solved) == N_TASKS - 3
    agg = doc["aggregate"][GOOD]
    # solve^k averages the tasks with enough counted trials: all but count-recipes at 1.0.
    assert agg["solve_k_rate"] == pytest.approx((N_TASKS - 3) / (N_TASKS - 2))
    assert agg["insufficient"] == 2
    assert doc["baseline_comparison"][0]["found"] is False


def test_ci_outputs_are_written(good_run) -> None:
    work, _, junit = good_run
    root = ET.parse(junit).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == N_TASKS
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["count-recipes"]
    md = (work / "summary.md").read_text()
    assert "count-recipes" in md and "| Model |" in md


def test_blessed_baseline_then_a_worse_model_shows_regressions(tmp_path: Path) -> None:
    out, baselines = tmp_path / "results", tmp_path / "baselines"
    # One model id whose script we swap: first the good play, blessed; then the bad one.
    script = tmp_path / "agent.yaml"
    script.write_text((EXAMPLES / "scripts" / "good.yaml").read_text())
    spec = f"scripted:{script}"
    first = run_json(str(EXAMPLES), "--model", spec, "--suite", "golden", "--out", str(out),
                     cwd=tmp_path)
    bless = trialrun("bless", first["run_dir"], "--baselines", str(baselines), cwd=tmp_path)
    assert bless.returncode == 0, bless.stderr
    script.write_text((EXAMPLES / "scripts" / "bad.yaml").read_text())
    proc = trialrun("run", str(EXAMPLES), "--model", spec, "--suite", "golden",
                    "--out", str(out), "--baselines", str(baselines), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "regression" in proc.stdout.lower()
    run_dir = proc.stdout.split("run: ")[1].split()[0]
    gate = trialrun("gate", "merge", run_dir, "--baselines", str(baselines), cwd=tmp_path)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert "FAIL" in gate.stdout
