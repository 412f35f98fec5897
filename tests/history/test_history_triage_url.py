"""`trialrun triage` with a `MODEL@URL` model, against a real loopback OpenAI-compatible
server: it shows the failing trials' transcripts and re-runs the test against the base
URL its runs recorded, for a CLI run and for a pytest session alike."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import trialrun
from trialrun.history import HistoryStore

SERVERS = Path(__file__).resolve().parents[1] / "servers"
if str(SERVERS) not in sys.path:
    sys.path.insert(0, str(SERVERS))

from gemini_openai_server import GeminiOpenAIServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)

SRC = str(Path(trialrun.__file__).resolve().parents[1])
TASK = """\
task_id: note
suite: golden
description: d
inputs: {prompt: What is in note.md?}
environment: {fixture: basic}
graders: [{type: contains, value: pineapple}]
tracked_metrics: [pass^k]
"""
EVAL = '''\
from trialrun.testing import eval_test


@eval_test("ALWAYS_PASSES", prompt="What is in note.md?", files={"note.md": "pineapple"})
def test_note(result):
    assert "pineapple" in result
'''


@pytest.fixture
def server() -> Iterator[GeminiOpenAIServer]:
    with GeminiOpenAIServer([], "I have no idea.", signed=False) as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tasks" / "fixtures" / "basic").mkdir(parents=True)
    (tmp_path / "tasks" / "fixtures" / "basic" / "note.md").write_text("pineapple\n")
    (tmp_path / "tasks" / "note.yaml").write_text(TASK)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_e.py").write_text(EVAL)
    return tmp_path


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env)


def _asked(server: GeminiOpenAIServer) -> int:
    return sum(1 for r in server.requests if r["path"].endswith("/chat/completions"))


def test_triage_reruns_a_model_at_url_from_a_cli_run(project: Path,
                                                     server: GeminiOpenAIServer) -> None:
    spec = f"openai-compat:test-model@{server.url}"
    store = str(project / "h.db")
    run = _run("trialrun", "run", "tasks", "-m", spec, "-k", "2", "--store", store,
               cwd=project)
    assert run.returncode == 0, run.stderr
    before = _asked(server)
    done = _run("trialrun", "triage", "note", "-k", "2", "--store", store, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "note: 2 latest failing trial(s)" in done.stdout
    assert "I have no idea." in done.stdout  # the transcript
    assert "note on openai-compat:test-model: 0% (0/2) below 66 %" in done.stdout
    assert _asked(server) == before + 2  # the re-run asked the recorded URL


def test_triage_shows_and_reruns_a_pytest_eval_at_url(project: Path,
                                                      server: GeminiOpenAIServer) -> None:
    spec = f"openai-compat:test-model@{server.url}"
    store = str(project / "h.db")
    session = _run("pytest", "evals/test_e.py", "-q", "-p", "no:cacheprovider",
                   "-p", "no:hypothesispytest", "--eval-model", spec, "--eval-store", store,
                   "--eval-log", "eval-log", cwd=project)
    assert session.returncode == 1, session.stdout + session.stderr  # the eval fails
    with HistoryStore.open(store) as history:
        (recorded,) = history.runs()
    assert recorded.models == ["openai-compat:test-model"]  # no URL in its history name
    assert [o.model for o in recorded.outcomes] == ["openai-compat:test-model"]
    before = _asked(server)
    done = _run("trialrun", "triage", "evals/test_e.py::test_note", "-k", "1", "--store",
                store, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "evals/test_e.py::test_note: 1 latest failing trial(s)" in done.stdout
    assert "I have no idea." in done.stdout  # the eval's transcript, from --eval-log
    assert "(no trial" not in done.stdout
    assert ("evals/test_e.py::test_note on openai-compat:test-model: 0% (0/1) below 66 %"
            in done.stdout)
    assert _asked(server) == before + 1


def test_a_url_with_credentials_must_be_given_again(project: Path,
                                                    server: GeminiOpenAIServer) -> None:
    spec = f"openai-compat:test-model@{server.url.replace('http://', 'http://me:pw@')}"
    store = str(project / "h.db")
    run = _run("trialrun", "run", "tasks", "-m", spec, "-k", "1", "--store", store,
               cwd=project)
    assert run.returncode == 0, run.stderr
    refused = _run("trialrun", "triage", "note", "-k", "1", "--store", store, cwd=project)
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "trialrun: note: model 'openai-compat:test-model' ran against a base URL with "
        "credentials, which its run folder does not keep; pass it again: "
        "-m 'openai-compat:test-model@URL'")
    given = _run("trialrun", "triage", "note", "-k", "1", "-m", spec, "--store", store,
                 cwd=project)
    assert given.returncode == 0, given.stderr
    assert "note on openai-compat:test-model: 0% (0/1) below 66 %" in given.stdout
