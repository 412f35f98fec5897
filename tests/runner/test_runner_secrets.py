"""No secret given on the command line is written down or printed (issue: secrets)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_support import cli_process as _trialrun

SECRET = "sk-proj-SECRETVALUE0123456789"
TOKEN = "tok3nVALUE42"

TASK = """\
task_id: greet
suite: golden
description: says hello
inputs: {prompt: "say all done"}
environment: {sandbox: none}
graders: [{type: contains, value: "all done"}]
tracked_metrics: [pass^k]
trials: {k: 1}
"""


def _everything_written(folder: Path) -> str:
    names = "\n".join(str(p) for p in folder.rglob("*"))
    texts = "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())
    return names + "\n" + texts


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "greet.yaml").write_text(TASK)
    return tmp_path


def test_credentials_in_a_base_url_are_never_written(hang_server, suite: Path) -> None:
    url = hang_server.url.replace("http://", f"http://user:{SECRET}@")
    spec = f"openai-compat:hang-model@{url}"
    done = _trialrun("run", "greet.yaml", "--model", spec, "--out", "out", cwd=suite)
    assert done.returncode == 0, done.stderr
    (run,) = (suite / "out").iterdir()
    written = _everything_written(run)
    assert SECRET not in written and SECRET not in done.stdout + done.stderr
    (line,) = (json.loads(x) for x in (run / "results.jsonl").read_text().splitlines())
    assert line["model"] == "openai-compat:hang-model"  # the name carries no URL
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["models"] == ["openai-compat:hang-model"]
    # a resume must be given the credentials again: run.json does not keep them
    again = _trialrun("run", "--resume", str(run), cwd=suite)
    assert again.returncode == 2 and "pass the same --model flags again" in again.stderr
    assert "Traceback" not in again.stderr


def test_a_base_url_without_credentials_is_kept_for_resume(hang_server, suite: Path) -> None:
    done = _trialrun("run", "greet.yaml", "--model", hang_server.model, "--out", "out", cwd=suite)
    assert done.returncode == 0, done.stderr
    (run,) = (suite / "out").iterdir()
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["endpoints"] == {
        "openai-compat:hang-model": {"url": hang_server.url, "credentials": False}
    }
    again = _trialrun("run", "--resume", str(run), cwd=suite)
    assert again.returncode == 0, again.stderr


def test_secret_options_of_an_agent_command_are_masked(suite: Path) -> None:
    agent = suite / "agent.py"
    agent.write_text("import sys\nprint('all done')\n")
    cmd = f"{sys.executable} {agent} --api-key {SECRET} --token {TOKEN} API_TOKEN={TOKEN}"
    done = _trialrun("run", "greet.yaml", "--agent-cmd", cmd, "--out", "out", cwd=suite)
    assert done.returncode == 0, done.stderr
    (run,) = (suite / "out").iterdir()
    written = _everything_written(run) + done.stdout + done.stderr
    assert SECRET not in written and TOKEN not in written
    manifest = json.loads((run / "run.json").read_text())
    assert "--api-key ***" in manifest["agent_cmd"]


def test_the_same_model_at_two_base_urls_is_refused(suite: Path) -> None:
    a, b = "openai-compat:m@http://127.0.0.1:9/v1", "openai-compat:m@http://127.0.0.2:9/v1"
    done = _trialrun("run", "greet.yaml", "--model", a, "--model", b, cwd=suite)
    assert done.returncode == 2 and "is given twice" in done.stderr
    assert "Traceback" not in done.stderr
