"""An agent asking the recording proxy for a model the run does not serve: a 404 in its
API's own error shape naming the model asked for and the model served, the trial an infra
error, and one line on the terminal. The run's own names, a preset's aliases and
`[agent] models` are answered."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from trialrun.agents._proxy import RecordingProxy
from trialrun.agents._served import NOT_SERVED_PREFIX, ServedModels
from trialrun.models import create_model

ROOT = Path(__file__).resolve().parents[2]
HI = [{"role": "user", "content": "hi"}]
# API → (path for a model name, body for it, the error message's place)
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/v1/chat/completions", {"messages": HI}),
    "chat-stream": ("/v1/chat/completions", {"messages": HI, "stream": True}),
    "responses": ("/v1/responses", {"input": "hi"}),
    "anthropic": ("/v1/messages?beta=true", {"messages": HI, "max_tokens": 5}),
    "anthropic-count": ("/v1/messages/count_tokens?beta=true", {"messages": HI}),
    "gemini": ("/v1beta/models/{model}:generateContent",
               {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
    "gemini-stream": ("/v1beta/models/{model}:streamGenerateContent?alt=sse",
                      {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
}  # fmt: skip


def _ask(tmp_path: Path, api: str, model: str | None, aliases=()) -> tuple[httpx.Response, Any]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": [{"content": "hello"}]}))
    path, body = REQUESTS[api]
    if "{model}" in path:
        path = path.replace("{model}", model or "")
    elif model is not None:
        body = {**body, "model": model}

    async def main() -> tuple[httpx.Response, Any]:
        model = create_model(f"scripted:{script}")
        async with (
            RecordingProxy(model, task_id="t1", aliases=aliases) as proxy,
            httpx.AsyncClient(base_url=proxy.root_url) as http,
        ):
            return await asyncio.wait_for(http.post(path, json=body), 30), proxy

    return asyncio.run(main())


def _message(api: str, answer: httpx.Response) -> str:
    data = answer.json()
    if api.startswith("anthropic"):
        assert data["type"] == "error" and data["error"]["type"] == "not_found_error"
    if api.startswith("gemini"):
        assert data["error"]["code"] == 404 and data["error"]["status"] == "NOT_FOUND"
    return str(data["error"]["message"])


@pytest.mark.parametrize("api", sorted(REQUESTS))
def test_a_model_the_run_does_not_serve_is_refused_in_the_apis_shape(tmp_path, api):
    answer, proxy = _ask(tmp_path, api, "other-model-9")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/json"  # never a stream left open
    message = _message(api, answer)
    assert message.startswith(f"{NOT_SERVED_PREFIX}'other-model-9', but this run serves ")
    assert "scripted:" in message and "[agent] models" in message
    assert proxy.log.model_refused == message
    assert proxy.log.exchanges == [] or proxy.log.exchanges[0].completion is None


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "gemini"])
def test_the_runs_label_its_id_an_alias_or_no_name_are_answered(tmp_path, api):
    script = tmp_path / "script.json"
    label = f"scripted:{script}"
    for name in ([label, str(script), "side-model"] if api == "gemini" else
                 [label, str(script), "side-model", None]):  # fmt: skip
        if api == "gemini" and name is not None and "/" in name:
            continue  # a path in a URL path: not a name a Gemini client sends
        answer, proxy = _ask(tmp_path, api, name, aliases=("side-model",))
        assert answer.status_code == 200, (name, answer.text)
        assert proxy.log.model_refused is None


def test_a_proxy_without_a_served_list_answers_any_name(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": [{"content": "hello"}]}))

    async def main() -> int:
        model = create_model(f"scripted:{script}")
        async with (
            RecordingProxy(model, task_id="t") as proxy,
            httpx.AsyncClient(base_url=proxy.root_url) as http,
        ):
            body = {"model": "anything", "messages": HI}
            return (await http.post("/v1/chat/completions", json=body)).status_code

    assert asyncio.run(main()) == 200


def test_an_openai_compat_model_is_served_by_its_name_without_the_base_url():
    async def main() -> tuple[int, int]:
        model = create_model("openai-compat:qwen3@http://127.0.0.1:9/v1")
        async with (
            RecordingProxy(model, task_id="t", aliases=()) as proxy,
            httpx.AsyncClient(base_url=proxy.root_url) as http,
        ):
            counted = await http.post(
                "/v1/messages/count_tokens", json={"model": "qwen3", "messages": HI}
            )
            other = await http.post(
                "/v1/messages/count_tokens", json={"model": "qwen2", "messages": HI}
            )
        return counted.status_code, other.status_code

    assert asyncio.run(main()) == (200, 404)


def test_served_names_ignore_geminis_models_prefix():
    served = ServedModels.of("scripted:/a/b.yaml", "/a/b.yaml", ("gemini-2.5-pro",), "fix it")
    assert served.refusal("models/gemini-2.5-pro") is None
    assert served.refusal("scripted%3A%2Fa%2Fb.yaml") is None  # the label in a URL path
    assert served.refusal("") is None
    refused = served.refusal("x" * 500)
    assert refused is not None and len(refused) < 300


# -- through the CLI ------------------------------------------------------------------

ASK = """
import json, os, sys, urllib.request, urllib.error
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
    data=json.dumps({"model": sys.argv[1], "messages": [{"role": "user", "content": "hi"}]})
    .encode(),
    headers={"Content-Type": "application/json"})
try:
    print(json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"])
except urllib.error.HTTPError as exc:
    print(exc.code, exc.read().decode(), file=sys.stderr)
    sys.exit(1)
"""


def _project(tmp_path: Path) -> tuple[Path, Path]:
    task = {
        "task_id": "ask", "suite": "golden", "description": "d",
        "inputs": {"prompt": "hi"}, "graders": [{"type": "contains", "value": "answer"}],
        "tracked_metrics": ["pass^k"], "trials": {"k": 2},
    }  # fmt: skip
    (tmp_path / "task.json").write_text(json.dumps(task))
    (tmp_path / "s.yaml").write_text("default:\n  - content: the answer\n")
    (tmp_path / "ask.py").write_text(ASK)
    return tmp_path / "task.json", tmp_path / "s.yaml"


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    task, script = _project(tmp_path)
    out = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(task), "-m", f"scripted:{script}",
         "--out", str(out), *args],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    run_dir = next(out.iterdir())
    lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    return done, lines


def test_cli_an_agent_cmd_asking_for_another_model_is_infra_with_one_line(tmp_path):
    ask = f"{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'ask.py'))} gpt-4o-mini"
    done, lines = _run(tmp_path, "--agent-cmd", ask, "--agent-api", "chat")
    assert done.returncode == 0, done.stderr
    assert [line["error"]["kind"] for line in lines] == ["infra", "infra"]
    # the same on every attempt: not run again as [retries] infra_trials would
    assert [line.get("attempts", 1) for line in lines] == [1, 1]
    said = [x for x in done.stderr.splitlines() if NOT_SERVED_PREFIX in x]
    said = [x.replace("ask#1", "ask#0") for x in said]  # whichever trial came first
    assert said == [
        "trialrun: ask#0: the agent asked for model 'gpt-4o-mini', but this run serves "
        f"'scripted:{tmp_path / 's.yaml'}' (--model); have the agent ask for $TRIALRUN_MODEL, "
        "or list the name under [agent] models in trialrun.toml to answer it with the run's "
        "model"
    ]  # once for the run, not once per trial


def test_cli_agent_models_in_trialrun_toml_answers_the_name(tmp_path):
    (tmp_path / "trialrun.toml").write_text('[agent]\nmodels = ["gpt-4o-mini"]\n')
    ask = f"{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'ask.py'))} gpt-4o-mini"
    done, lines = _run(tmp_path, "--agent-cmd", ask, "--agent-api", "chat")
    assert [line["solve"] for line in lines] == [True, True], done.stderr
    (tmp_path / "trialrun.toml").write_text("[agent]\nmodels = 3\n")
    task, script = _project(tmp_path)
    bad = subprocess.run(
        [sys.executable, "-m", "trialrun", "run", str(task), "-m", f"scripted:{script}",
         "--agent-cmd", ask, "--out", str(tmp_path / "r2")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith(
        "[agent] models: expected a list of model names; write models = [\"gpt-4o-mini\"]"
    )


def test_cli_the_real_claude_asking_for_another_model_is_one_line(tmp_path):
    """Claude Code as a plain --agent-cmd, told to use a model the run does not serve."""
    claude = shutil.which("claude")
    if claude is None:
        pytest.skip("claude is not on PATH (trialrun agents install claude-code)")
    command = f"{shlex.quote(claude)} -p {{prompt}} --model claude-sonnet-4-5"
    done, lines = _run(tmp_path, "--agent-cmd", command, "--agent-api", "anthropic", "-k", "1")
    assert lines[0]["error"]["kind"] == "infra", lines[0]
    message = lines[0]["error"]["message"]
    assert message.startswith("the agent asked for model 'claude-sonnet-4-5', but this run ")
    said = [x for x in done.stderr.splitlines() if NOT_SERVED_PREFIX in x]
    assert said == [f"trialrun: ask#0: {message}"]
