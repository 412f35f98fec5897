"""The run's trialrun.toml reaches every model client and agent the run builds: the
`[retries]`, `[limits]`, `[pricing]` and `[agent]` of the `ProjectConfig` passed in are the
ones used, in the driver and in worker processes, and a different trialrun.toml in the
working directory is never read below the entry point (issue 29, configuration resolved
once)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from trialrun import run as run_eval
from trialrun.config import ProjectConfig
from trialrun.tasks import Task

SERVERS = Path(__file__).resolve().parents[1] / "servers"
if str(SERVERS) not in sys.path:
    sys.path.insert(0, str(SERVERS))

from h4_fault_server import FaultServer  # noqa: E402

# read from the working directory, each of these would fail every trial of these runs
CWD_TOML = """\
[retries]
max_attempts = 1
[limits]
max_body_mb = 0.0001
max_agent_output_mb = 4000
[pricing."openai-compat:test-model"]
input_per_mtok = 100.0
output_per_mtok = 100.0
[agent]
env = ["NOT A NAME"]
"""
PRICE = {"input_per_mtok": 1.0, "cached_per_mtok": 0.5, "output_per_mtok": 2.0}
# the fault server's usage: 100 prompt tokens (40 cached), 20 completion tokens
COST = (60 * 1.0 + 40 * 0.5 + 20 * 2.0) / 1e6


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory, holding a trialrun.toml that conflicts with the run's."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "trialrun.toml").write_text(CWD_TOML, encoding="utf-8")
    monkeypatch.chdir(folder)
    for name in ("MAX_ATTEMPTS", "BASE_DELAY_S", "MAX_DELAY_S", "REQUEST_TIMEOUT_S"):
        monkeypatch.delenv(f"TRIALRUN_RETRY_{name}", raising=False)
    return folder


def task(k: int) -> Task:
    return Task.model_validate({
        "task_id": "hello",
        "suite": "golden",
        "description": "d",
        "inputs": {"prompt": "say hello"},
        "graders": [{"type": "contains", "value": "hello"}],
        "tracked_metrics": ["pass^k"],
        "trials": {"k": k},
    })  # fmt: skip


@pytest.mark.parametrize("processes", [1, 2])
def test_a_model_client_uses_the_runs_retries_limits_and_prices(
    elsewhere: Path, tmp_path: Path, processes: int
) -> None:
    server = FaultServer()
    server.script(["500", "500"])  # then answers: within 3 attempts, never within 1
    project = ProjectConfig(tmp_path / "trialrun.toml", {
        "retries": {"max_attempts": 3, "base_delay_s": 0.001, "max_delay_s": 0.01,
                    "infra_trials": 0},
        "limits": {"max_body_mb": 1},
        "pricing": {"openai-compat:test-model": PRICE},
    })  # fmt: skip
    try:
        outcome = run_eval([task(2)], [f"openai-compat:test-model@{server.url}"],
                           out=tmp_path / "runs", concurrency=2, processes=processes,
                           handle_sigint=False, project=project)  # fmt: skip
    finally:
        server.close()
    lines = outcome.results
    assert [line.error for line in lines] == [None, None]
    assert [line.solve for line in lines] == [True, True]
    assert [line.cost_usd for line in lines] == [pytest.approx(COST)] * 2
    assert len(server.requests) == 4  # two answers, two retried errors


AGENT = """\
import json, os, sys
json.dump(dict(os.environ), open(sys.argv[1], "w"))
print("hello " + "x" * 4000)
"""


def test_an_agent_command_gets_the_runs_agent_env_and_output_limit(
    elsewhere: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIALRUN_TEST_PASSED", "given")
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT, encoding="utf-8")
    seen = tmp_path / "env.json"
    project = ProjectConfig(tmp_path / "trialrun.toml", {
        "agent": {"env": ["TRIALRUN_TEST_PASSED"]},
        "limits": {"max_agent_output_mb": 0.001},  # 1048 bytes of the agent's stdout kept
    })  # fmt: skip
    outcome = run_eval([task(1)], out=tmp_path / "runs", handle_sigint=False,
                       agent_cmd=f"{sys.executable} {agent} {seen}",
                       project=project)  # fmt: skip
    [line] = outcome.results
    assert line.error is None and line.solve is True
    assert json.loads(seen.read_text())["TRIALRUN_TEST_PASSED"] == "given"
    [note] = line.extra["agent_notes"]
    assert note.startswith(f"agent stdout cut: {4007 - 1048} bytes left out")  # 4007 printed
