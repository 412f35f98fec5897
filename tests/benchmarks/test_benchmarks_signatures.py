"""The `agent` backend keeps Gemini's thought signatures: its history's assistant
messages come from `trialrun.models.assistant_message`, so a tool call's
`extra_content` goes back on the same call. Against a real loopback stand-in for
Gemini's OpenAI-compatible endpoint that answers 400 (as Gemini 3 does) for a call of
the current turn replayed without its exact signature."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from benchmarks_support import write_gaia

from trialrun.benchmarks import expand, load_suite, run_benchmark
from trialrun.rundir import RunDir

SERVERS = Path(__file__).resolve().parents[1] / "servers"
if str(SERVERS) not in sys.path:
    sys.path.insert(0, str(SERVERS))

from gemini_openai_server import GeminiOpenAIServer, signed  # noqa: E402

pytestmark = pytest.mark.timeout(60)

READ = {"path": "sales.csv"}
ADD = {"expression": "40 + 2"}


def test_the_agent_backend_sends_each_signature_back(tmp_path: Path) -> None:
    write_gaia(tmp_path / "gaia")
    # two steps in one turn, each signed: Gemini 3 checks every call of the turn
    steps = [[("file_read", READ)], [("calculator", ADD)]]
    with GeminiOpenAIServer(steps, "The totals add up.\nFINAL ANSWER: 42") as server:
        suite = tmp_path / "gemini.toml"
        suite.write_text(
            f'[meta]\nname = "gemini-agent"\n[run]\noutput_dir = "out"\n'
            f'[[models]]\nname = "gemini-3-test"\nprovider = "openai-compat"\n'
            f'base_url = "{server.url}"\n'
            f'[[benchmarks]]\nname = "gaia"\nbackend = "agent"\n'
            f'tools = ["file_read", "calculator"]\ndataset = "gaia/metadata.jsonl"\n',
            encoding="utf-8",
        )
        (pair,) = expand(load_suite(suite))
        outcome = run_benchmark(pair, handle_sigint=False)
    assert server.rejected == 0 and len(server.requests) == 6  # 3 turns a record, no 400
    rundir = RunDir.open(outcome.run_dir)
    lines = {line.task_id: line for line in rundir.results()}
    assert all(line.error is None for line in lines.values()), lines
    assert outcome.summary["correct"] == 1  # g-file (42); g-plain's answer is Paris
    # the last request of g-file's turn carried both signatures, byte for byte
    asked = [r["body"]["messages"] for r in server.requests
             if "sum of the totals" in json.dumps(r["body"]["messages"][:2])]  # fmt: skip
    last = max(asked, key=len)
    sent = [m["tool_calls"][0] for m in last if m["role"] == "assistant"]
    assert [c["extra_content"] for c in sent] == [signed("file_read", READ),
                                                   signed("calculator", ADD)]  # fmt: skip
    # the transcript keeps the backend's history: each signature on its call
    messages = rundir.transcript(lines["gaia-g-file"]).messages
    calls = [m["tool_calls"][0] for m in messages
             if m["role"] == "assistant" and m.get("tool_calls")]  # fmt: skip
    assert [(c["function"]["name"], c["extra_content"]) for c in calls] == [
        ("file_read", signed("file_read", READ)), ("calculator", signed("calculator", ADD))
    ]  # fmt: skip
