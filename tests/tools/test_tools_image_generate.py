"""`image_generate`: a suite naming it (PinchBench's tool list) validates; with no
provider each call is a tool error the agent sees; the `openai` provider against a real
loopback OpenAI-compatible images endpoint."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tools_support import call, settings

from trialrun.benchmarks import check_suite_file
from trialrun.errors import UserError
from trialrun.tools import load_pack, tool_pack_problem

PNG = b"\x89PNG\r\n\x1a\nfake-image-bytes"
PINCHBENCH_SUITE = """
[meta]
name = "pinchbench"
[run]
output_dir = "results/pinchbench"
[[models]]
name = "anthropic/claude-sonnet-4"
[[benchmarks]]
name = "gaia"  # PinchBench's tool list on a benchmark trialrun ships
backend = "jarvis-agent"
agent = "native_react"
tools = [
    "file_read", "file_write", "web_search", "shell_exec",
    "code_interpreter", "browser_navigate", "image_generate",
    "calculator", "http_request", "pdf_extract",
]
"""


class Images(BaseHTTPRequestHandler):
    seen: list[tuple[str, dict[str, Any], str]] = []

    def do_POST(self) -> None:
        sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Images.seen.append((self.path, sent, self.headers.get("Authorization", "")))
        if sent["prompt"] == "link please":
            data = {"url": "http://images.example/1.png"}
        else:
            data = {"b64_json": base64.b64encode(PNG).decode()}
        body = json.dumps({"created": 1, "data": [data]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Images)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_suite_naming_the_web_tools_validates(tmp_path: Path) -> None:
    suite = tmp_path / "pinchbench.toml"
    suite.write_text(PINCHBENCH_SUITE)
    check = check_suite_file(suite)
    assert check.problems == []


def test_no_provider_is_a_tool_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert tool_pack_problem("image_generate") is None
    got = call("image_generate", tmp_path, prompt="a red bicycle")
    assert not got.ok
    assert got.content.startswith(
        "image_generate: no provider configured; set [tools.image_generate] provider")


def test_openai_compatible_endpoint(
    tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IMAGES_KEY", "sk-test")
    options = {"provider": "openai", "url": endpoint, "model": "tiny-diffusion",
               "api_key_env": "IMAGES_KEY"}
    saved = call("image_generate", tmp_path, options, prompt="a red bicycle", size="256x256",
                 output_path="bike.png")
    assert saved.ok, saved.content
    assert saved.content == f"Image saved to bike.png ({len(PNG)} bytes)."
    assert (tmp_path / "bike.png").read_bytes() == PNG
    path, sent, auth = Images.seen[-1]
    assert (path, auth) == ("/v1/images/generations", "Bearer sk-test")
    assert sent == {"model": "tiny-diffusion", "prompt": "a red bicycle", "size": "256x256",
                    "n": 1}
    linked = call("image_generate", tmp_path, options, prompt="link please")
    assert linked.ok and linked.content == "Image generated: http://images.example/1.png"
    outside = call("image_generate", tmp_path, options, prompt="x", output_path="../x.png")
    assert not outside.ok and "outside the workspace" in outside.content
    other = call("image_generate", tmp_path, options, prompt="x", provider="dalle")
    assert not other.ok and "provider 'dalle' is not configured" in other.content


def test_misconfiguration(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown provider 'midjourney'; known: openai"):
        load_pack("image_generate", {"provider": "midjourney"})
    bad_size = call("image_generate", tmp_path, {"provider": "openai"}, prompt="x", size="9x9")
    assert not bad_size.ok and "size must be one of" in bad_size.content
    down = call("image_generate", tmp_path, {"provider": "openai", "url": "http://127.0.0.1:9/v1"},
                prompt="x")
    assert not down.ok and "did not answer" in down.content


def test_the_provider_comes_from_the_runs_trialrun_toml_not_the_cwds(
    tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "trialrun.toml").write_text(
        f'[tools.image_generate]\nprovider = "openai"\nurl = "{endpoint}"\n'
    )
    monkeypatch.chdir(tmp_path)  # the working directory's file is not the run's
    assert "no provider configured" in call("image_generate", tmp_path, prompt="x").content
    given = settings({"tools": {"image_generate": {"provider": "openai", "url": endpoint}}})
    linked = call("image_generate", tmp_path, None, given, prompt="link please")
    assert linked.ok and linked.content == "Image generated: http://images.example/1.png"
    with pytest.raises(UserError) as bad:
        settings({"tools": {"image_generate": {"provider": "openai", "model": ""}}})
    assert str(bad.value) == (
        "trialrun.toml: [tools.image_generate] model must be a non-empty string"
    )
