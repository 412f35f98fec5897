"""The [tools] tables reach the tools from the run's `ProjectConfig` (issue 29 item 3):
a run given a config behaves per that config whatever trialrun.toml the working
directory holds, in this process, on worker processes and on Ray workers; a bad value is
one line before anything is written."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from trialrun import UserError
from trialrun import run as run_eval
from trialrun.config import ProjectConfig
from trialrun.rundir import RunDir

pytestmark = pytest.mark.timeout(300)

TASK = """\
task_id: fetch
suite: golden
description: the agent calls one tool, then answers done
inputs: {{prompt: go}}
environment: {{tools: [{tool}], budgets: {{timeout_s: 60}}}}
graders: [{{type: contains, value: done}}]
tracked_metrics: [pass^k]
trials: {{k: 2}}
"""

SCRIPT = """\
tasks:
  fetch:
    - tool_calls: [{{name: {tool}, arguments: {arguments}}}]
    - content: done
"""


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _suite(tmp_path: Path, tool: str, arguments: str) -> tuple[Path, str]:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "fetch.yaml").write_text(TASK.format(tool=tool))
    script = tmp_path / "script.yaml"
    script.write_text(SCRIPT.format(tool=tool, arguments=arguments))
    return suite, f"scripted:{script}"


def _cwd_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str) -> None:
    """Run from a folder whose trialrun.toml says the opposite of the run's config."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "trialrun.toml").write_text(toml)
    monkeypatch.chdir(elsewhere)


def _tool_results(path: Path) -> list[str]:
    rundir = RunDir.open(path)
    return [text for line in rundir.iter_results() for text in rundir.transcript(line).tool_results]


def _given(tables: dict[str, Any], tmp_path: Path) -> ProjectConfig:
    return ProjectConfig(tmp_path / "project" / "trialrun.toml", {"tools": tables})


EXECUTORS = [
    pytest.param({}, id="this-process"),
    pytest.param({"processes": 2, "concurrency": 2}, id="worker-processes"),
]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_allow_list_is_the_given_configs(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch, executor: dict[str, Any]
) -> None:
    suite, model = _suite(tmp_path, "http_request", f"{{url: '{server}/hello'}}")
    _cwd_with(tmp_path, monkeypatch, '[tools.http_request]\nallow = ["*.example.org"]\n')
    project = _given({"http_request": {"allow": ["127.0.0.1"]}}, tmp_path)
    done = run_eval(suite, [model], out=tmp_path / "o", project=project,
                    handle_sigint=False, fsync=False, **executor)  # fmt: skip
    assert _tool_results(done.path) == ["HTTP 200 (text/plain)\n\nhello"] * 2


@pytest.mark.parametrize("executor", EXECUTORS)
def test_running_unjailed_is_the_given_configs_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: dict[str, Any]
) -> None:
    monkeypatch.setenv("TRIALRUN_JAIL", "off")  # as if bwrap did not work here (workers too)
    suite, model = _suite(tmp_path, "code_interpreter", "{code: 'print(6 * 7)'}")
    _cwd_with(tmp_path, monkeypatch, "[tools]\nunjailed = true\n")
    jailed_only = run_eval(suite, [model], out=tmp_path / "o1", project=_given({}, tmp_path),
                           handle_sigint=False, fsync=False, **executor)  # fmt: skip
    refused = _tool_results(jailed_only.path)
    assert len(refused) == 2
    assert all(r.startswith("code_interpreter: refused: the bwrap jail") for r in refused)
    opted_in = _given({"unjailed": True}, tmp_path)
    (tmp_path / "elsewhere" / "trialrun.toml").write_text("[tools]\nunjailed = false\n")
    ran = run_eval(suite, [model], out=tmp_path / "o2", project=opted_in,
                   handle_sigint=False, fsync=False, **executor)  # fmt: skip
    assert _tool_results(ran.path) == ["=== STDOUT ===\n42"] * 2


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"unjailed": "yes"}, "[tools] unjailed = 'yes': give true"),
        ({"http_request": {"allow": "127.0.0.1"}},
         "[tools.http_request] allow must be a list of host patterns"),
        ({"browser_navigate": {"timeout_s": 0}}, "[tools.browser_navigate] timeout_s must be"),
        ({"web_search": {"provider": "bing"}}, "[tools.web_search] unknown provider 'bing'"),
        ({"image_generate": {"provider": "openai", "timeout_s": -1}},
         "[tools.image_generate] timeout_s must be a number > 0"),
    ],
)
def test_a_bad_value_is_one_line_before_anything_is_written(
    tmp_path: Path, tables: dict[str, Any], message: str
) -> None:
    """Even when no task uses the tool: the run's file is wrong, not a trial."""
    suite, model = _suite(tmp_path, "think", "{thought: hmm}")
    with pytest.raises(UserError) as refused:
        run_eval(suite, [model], out=tmp_path / "o", project=_given(tables, tmp_path),
                 handle_sigint=False)  # fmt: skip
    text = str(refused.value)
    assert text.startswith(f"{tmp_path / 'project' / 'trialrun.toml'}: {message}")
    assert "\n" not in text
    assert not (tmp_path / "o").exists()


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """A local Ray cluster, started the way `--executor ray` without an address starts one."""
    ray = pytest.importorskip("ray")
    from trialrun.runner._ray import connect_ray

    connect_ray(None)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_workers_get_the_given_configs_allow_list(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch, ray_cluster: None
) -> None:
    suite, model = _suite(tmp_path, "http_request", f"{{url: '{server}/hello'}}")
    _cwd_with(tmp_path, monkeypatch, '[tools.http_request]\nallow = ["*.example.org"]\n')
    project = _given({"http_request": {"allow": ["127.0.0.1"]}}, tmp_path)
    done = run_eval(suite, [model], out=tmp_path / "o", project=project, executor="ray",
                    concurrency=2, handle_sigint=False, fsync=False)  # fmt: skip
    assert _tool_results(done.path) == ["HTTP 200 (text/plain)\n\nhello"] * 2
