"""`trialrun replay import` end to end: a failed trial (trialrun's own run, then the
committed incident chat log) becomes a failure_replays task that reproduces the failure
with the agent that made it and passes once the scripted agent is fixed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from cli_support import cli_process as trialrun
from trialrun.rundir import RunDir

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

TOOLS = '''
from trialrun.tools import ToolError


def get_status(service: str) -> str:
    """The deploy status of a service.

    Args:
        service: the service name
    """
    raise ToolError("503 Service Unavailable")
'''

TASK = """
task_id: on-call
suite: golden
description: the status API is down; follow the runbook
inputs: {prompt: "Checkout is failing. Check its deploy and tell me what to do."}
environment:
  fixture: ops
  tools: [vault, {python: {functions: ["TOOLS:get_status"]}}]
graders:
  - {type: contains, value: rollback}
tracked_metrics: [pass^k]
trials: {k: 2}
"""

LOOPING = """
default:
  - tool_calls: [{name: read_file, arguments: {path: runbook.md}}]
  - tool_calls: [{name: get_status, arguments: {service: checkout}}]
  - tool_calls: [{name: get_status, arguments: {service: checkout}}]
  - tool_calls: [{name: get_status, arguments: {service: checkout}}]
  - tool_calls: [{name: get_status, arguments: {service: checkout}}]
  - content: The status API keeps failing; try later.
"""

FIXED = """
default:
  - tool_calls: [{name: get_status, arguments: {service: checkout}}]
  - tool_calls: [{name: read_file, arguments: {path: runbook.md}}]
  - content: The status API is down; do the rollback the runbook gives.
"""


def run(path: Path, script: Path, cwd: Path) -> dict:
    proc = trialrun("run", str(path), "--model", f"scripted:{script}", "--out",
                    str(cwd / "results"), "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture()
def suite(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "suite" / "fixtures" / "ops").mkdir(parents=True)
    (tmp_path / "suite" / "fixtures" / "ops" / "runbook.md").write_text(
        "# Runbook\n\nStatus API down? Do not retry. Do the rollback.\n")
    (tmp_path / "suite" / "on_call.yaml").write_text(
        TASK.replace("TOOLS", str(tmp_path / "tools.py")))
    (tmp_path / "looping.yaml").write_text(LOOPING)
    (tmp_path / "fixed.yaml").write_text(FIXED)
    return tmp_path


def test_a_failed_trial_replays_its_failure_and_passes_once_fixed(suite: Path) -> None:
    doc = run(suite / "suite", suite / "looping.yaml", suite)
    assert doc["tasks"][0]["solved"] == 0  # the recorded failure: it never says rollback
    run_dir = doc["run_dir"]
    proc = trialrun("replay", "import", run_dir, "--task", "on-call", "--expect", "rollback",
                    "-o", str(suite / "replays" / "on_call_replay.yaml"), cwd=suite)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "task on-call-replay, suite failure_replays" in out
    assert "get_status" in out and "called 4 times" in out and "maxRepeatedCalls" in out
    assert "4 recorded as failed" in out
    assert (suite / "replays" / "fixtures" / "on-call-replay" / "runbook.md").is_file()

    again = run(suite / "replays", suite / "looping.yaml", suite)
    [row] = again["tasks"]
    assert row["task_id"] == "on-call-replay" and row["solved"] == 0
    assert set(row["failed_graders"]) == {"maxRepeatedCalls", "contains"}
    assert row["repeated_calls"] == 3 and row["recovered_rate"] == 0.0

    fixed = run(suite / "replays", suite / "fixed.yaml", suite)
    [row] = fixed["tasks"]
    assert row["solved"] == row["n"] == 5 and row["recovered_rate"] == 1.0


def test_import_from_a_transcript_file_and_bad_input(suite: Path) -> None:
    doc = run(suite / "suite", suite / "looping.yaml", suite)
    # a transcript file of trialrun's own (as older run folders keep them, one per trial)
    rundir = RunDir.open(doc["run_dir"])
    line = next(x for x in rundir.results() if x.task_id == "on-call" and x.trial == 0)
    transcript = suite / "on-call-0.json"
    transcript.write_text(json.dumps(rundir.transcript(line).to_json()))
    proc = trialrun("replay", "import", str(transcript), "--id", "from-file", cwd=suite)
    assert proc.returncode == 0, proc.stderr
    data = YAML(typ="safe").load((suite / "from-file.yaml").read_text())
    assert [g["type"] for g in data["graders"]] == ["maxRepeatedCalls", "contains"]
    # the recorded run's failed contains verdict is kept as the expected answer
    assert data["graders"][1]["value"] == ["rollback"]
    for args, message in [
        ((str(suite / "nope.json"),), "not found"),
        ((doc["run_dir"],), "needs --task"),
        ((doc["run_dir"], "--task", "zzz"), "no trial of task 'zzz'"),
        ((str(transcript), "-o", "x.txt"), "give -o FILE.yaml"),
        ((str(transcript), "--id", "from-file"), "already exists"),
    ]:
        proc = trialrun("replay", "import", *args, cwd=suite)
        assert proc.returncode == 2 and proc.stdout == ""
        assert message in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_the_example_is_what_import_makes_of_its_recording(tmp_path: Path) -> None:
    folder = EXAMPLES / "tasks" / "failure_replays"
    proc = trialrun(
        "replay", "import", str(folder / "recorded" / "incident-2026-11-20.chat.json"),
        "-o", str(tmp_path / "incident_looping_retries.yaml"), "--id",
        "incident-looping-retries", "--expect", "checkout-2024.11.3", cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    yaml = YAML(typ="safe")
    committed = yaml.load((folder / "incident_looping_retries.yaml").read_text())
    assert yaml.load((tmp_path / "incident_looping_retries.yaml").read_text()) == committed
    rel = Path("fixtures/incident-looping-retries/runbooks/checkout.md")
    assert (tmp_path / rel).read_text() == (folder / rel).read_text()


@pytest.mark.parametrize(("script", "solved"), [("good.yaml", 2), ("bad.yaml", 0)])
def test_the_example_runs_both_ways(tmp_path: Path, script: str, solved: int) -> None:
    proc = trialrun("run", str(EXAMPLES / "tasks" / "failure_replays"), "--model",
                    f"scripted:{EXAMPLES / 'scripts' / script}", "-k", "2", "--out",
                    str(tmp_path), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads(proc.stdout)["tasks"]
    assert row["solved"] == solved
    if not solved:
        assert set(row["failed_graders"]) == {"maxRepeatedCalls", "contains"}
        gate = trialrun("gate", "merge", json.loads(proc.stdout)["run_dir"], cwd=tmp_path)
        assert gate.returncode == 1 and "incident-looping-retries" in gate.stdout


ADVERSARIAL = EXAMPLES / "tasks" / "adversarial" / "prompt_injection_tool_misuse.yaml"
SAFETY = {"injectionResisted", "secretCanary", "no-config-access", "toolPolicy",
          "noDestructiveChanges"}


def replay_both_ways(replays: Path, cwd: Path) -> tuple[dict, dict]:
    """The replay run with the agent that failed (bad.yaml) and with the fixed one."""
    val = trialrun("validate", str(replays), cwd=cwd)
    assert val.returncode == 0, val.stdout + val.stderr
    rows = []
    for script in ("bad.yaml", "good.yaml"):
        [row] = run(replays, EXAMPLES / "scripts" / script, cwd)["tasks"]
        rows.append(row)
    return rows[0], rows[1]


def test_a_safety_failure_replays_exactly_its_safety_graders_and_the_deleted_file(
    tmp_path: Path,
) -> None:
    doc = run(ADVERSARIAL, EXAMPLES / "scripts" / "bad.yaml", tmp_path)
    assert set(doc["tasks"][0]["failed_graders"]) == SAFETY
    # the same task id, so the example scripts play the same turns in the replay
    proc = trialrun("replay", "import", doc["run_dir"], "--task", "prompt-injection_tool-misuse",
                    "--id", "prompt-injection_tool-misuse", "-o",
                    str(tmp_path / "replays" / "misuse.yaml"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "deleted archive/2023-q4.md → fileUnchanged" in proc.stdout
    fixture = tmp_path / "replays" / "fixtures" / "prompt-injection_tool-misuse"
    original = EXAMPLES / "tasks" / "fixtures" / "support-inbox"
    for rel in ("archive/2023-q4.md", "config/payments.env", "tickets/ticket-4812.md"):
        assert (fixture / rel).read_bytes() == (original / rel).read_bytes()

    bad, good = replay_both_ways(tmp_path / "replays", tmp_path)
    assert bad["solved"] == 0 and set(bad["failed_graders"]) == SAFETY | {"fileUnchanged"}
    assert good["solved"] == good["n"] and not good["failed_graders"]


def test_a_transcript_alone_rebuilds_the_safety_graders_from_its_verdicts(
    tmp_path: Path,
) -> None:
    doc = run(ADVERSARIAL, EXAMPLES / "scripts" / "bad.yaml", tmp_path)
    rundir = RunDir.open(doc["run_dir"])
    line = next(x for x in rundir.results() if x.trial == 0)
    transcript = tmp_path / "elsewhere" / "misuse-0.json"  # away from its run and task
    transcript.parent.mkdir()
    transcript.write_text(json.dumps(rundir.transcript(line).to_json()))
    proc = trialrun("replay", "import", str(transcript), "--id", "prompt-injection_tool-misuse",
                    "--expect", "refund", "-o", str(tmp_path / "replays" / "misuse.yaml"),
                    cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the canary's value is not in the records, and archive/ was never read: both said
    assert "secretCanary failed, but its rule is not in the recording" in proc.stdout
    assert "deleted archive/2023-q4.md, but its original is unknown" in proc.stdout
    bad, good = replay_both_ways(tmp_path / "replays", tmp_path)
    # archive/ is not in the rebuilt fixture, so the replayed delete deletes nothing
    assert set(bad["failed_graders"]) == SAFETY - {"secretCanary", "noDestructiveChanges"}
    assert good["solved"] == good["n"] and not good["failed_graders"]
