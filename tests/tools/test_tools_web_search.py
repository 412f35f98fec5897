"""`web_search` through a provider: the searxng provider's HTTP path against a loopback
SearxNG-shaped endpoint; no provider, no network or a broken endpoint is a tool error
the agent sees, never a refused task."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from tools_support import call, settings

from trialrun.errors import UserError
from trialrun.tools import load_pack, tool_pack_problem
from trialrun.tools._search_providers import SEARCH_PROVIDERS

RESULTS = [
    {"title": "Paris - Wikipedia", "url": "https://en.wikipedia.org/wiki/Paris",
     "content": "Paris is the capital of France."},
    {"title": "Visit Paris", "url": "https://visit.paris", "content": "x" * 900},
    {"title": "", "url": "https://third.example", "content": "third"},
    {"bogus": True},
]


class Searx(BaseHTTPRequestHandler):
    seen: list[dict[str, list[str]]] = []

    def do_GET(self) -> None:
        url = urlparse(self.path)
        query = parse_qs(url.query)
        Searx.seen.append(query)
        if url.path == "/broken":
            body, kind, status = b"<html>no json</html>", "text/html", 200
        elif url.path == "/down":
            body, kind, status = b"{}", "application/json", 503
        else:
            body = json.dumps({"query": query["q"][0], "results": RESULTS}).encode()
            kind, status = "application/json", 200
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Searx)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_searxng_provider_over_http(tmp_path: Path, endpoint: str) -> None:
    options = {"provider": "searxng", "url": f"{endpoint}/search"}
    result = call("web_search", tmp_path, options, query="capital of France", max_results=3)
    assert result.ok, result.content
    assert Searx.seen[-1] == {"q": ["capital of France"], "format": ["json"]}
    lines = result.content.splitlines()
    assert lines[:3] == [
        "1. Paris - Wikipedia",
        "   https://en.wikipedia.org/wiki/Paris",
        "   Paris is the capital of France.",
    ]
    assert lines[5] == "   " + "x" * 499 + "…"
    assert lines[6] == "3. https://third.example"
    assert len(lines) == 9


def test_the_provider_comes_from_the_runs_trialrun_toml_not_the_cwds(
    tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "trialrun.toml").write_text(
        f'[tools.web_search]\nprovider = "searxng"\nurl = "{endpoint}/search"\n'
    )
    monkeypatch.chdir(tmp_path)  # the working directory's file is not the run's
    assert "no provider configured" in call("web_search", tmp_path, query="paris").content
    given = settings({"tools": {"web_search": {"provider": "searxng",
                                               "url": f"{endpoint}/search"}}})  # fmt: skip
    result = call("web_search", tmp_path, None, given, query="paris", max_results=1)
    assert result.ok and result.content.startswith("1. Paris - Wikipedia")


def test_no_provider_is_a_tool_error_not_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert tool_pack_problem("web_search") is None  # the task loads
    result = call("web_search", tmp_path, query="anything")
    assert not result.ok
    assert result.content.startswith("web_search: no provider configured; set [tools.web_search]")


def test_an_endpoint_down_or_broken_is_a_tool_error(tmp_path: Path, endpoint: str) -> None:
    def search(url: str) -> str:
        result = call("web_search", tmp_path, {"provider": "searxng", "url": url}, query="q")
        assert not result.ok
        return result.content

    assert "answered HTTP 503" in search(f"{endpoint}/down")
    assert "answered no JSON" in search(f"{endpoint}/broken")
    closed = search("http://127.0.0.1:9/search")  # the discard port: nothing listens
    assert "did not answer" in closed and "no network" in closed


def test_misconfiguration(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown provider 'bing'; known: searxng"):
        load_pack("web_search", {"provider": "bing"})
    with pytest.raises(UserError, match="unknown option"):
        load_pack("web_search", {"engine": "x"})
    with pytest.raises(UserError) as bad:  # the run's file: one line before any trial
        settings({"tools": {"web_search": {"provider": "bing"}}})
    assert str(bad.value) == (
        "trialrun.toml: [tools.web_search] unknown provider 'bing'; known: searxng"
    )
    no_url = call("web_search", tmp_path, {"provider": "searxng"}, query="q")
    assert not no_url.ok and 'needs url = "http://HOST:PORT/search"' in no_url.content
    assert not call("web_search", tmp_path, {"provider": "searxng", "url": "http://x"},
                    query="q", max_results=50).ok


def test_providers_are_a_registry() -> None:
    assert "searxng" in SEARCH_PROVIDERS
    (tool,) = load_pack("web_search")
    assert tool.parameters["required"] == ["query"]
    assert set(tool.parameters["properties"]) == {"query", "max_results"}
