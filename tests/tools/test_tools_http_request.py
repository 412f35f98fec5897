"""`http_request` against a real loopback server: allowed hosts only (none by default),
the body cut at max_bytes, the time limit, redirects re-checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tools_support import call, settings
from web_server import Pages, serving

from trialrun.errors import UserError
from trialrun.tools import load_pack, tool_pack_problem
from trialrun.tools._web_access import host_matches

LOOPBACK = {"allow": ["127.0.0.1"]}


@pytest.fixture()
def server() -> Iterator[str]:
    with serving() as url:
        yield url


def test_an_allowed_host_answers(tmp_path: Path, server: str) -> None:
    got = call("http_request", tmp_path, LOOPBACK, url=f"{server}/hello")
    assert got.ok, got.content
    assert got.content == "HTTP 200 (text/plain)\n\nhello"
    posted = call("http_request", tmp_path, LOOPBACK, url=f"{server}/echo", method="post",
                  headers={"X-Trial": "7"}, body='{"a": 1}')
    assert posted.ok and posted.content.endswith('got {"a": 1}')
    method, path, headers, _ = Pages.seen[-1]
    assert (method, path, headers["X-Trial"]) == ("POST", "/echo", "7")


def test_no_allow_list_is_a_tool_error_not_a_refusal(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert tool_pack_problem("http_request") is None  # the task loads
    before = len(Pages.seen)
    denied = call("http_request", tmp_path, url=f"{server}/hello")
    assert not denied.ok
    assert denied.content.startswith("http_request: no host is allowed; set [tools.http_request]")
    other = call("http_request", tmp_path, {"allow": ["api.example.com"]}, url=f"{server}/")
    assert not other.ok and "host '127.0.0.1' is not allowed" in other.content
    assert len(Pages.seen) == before  # nothing was sent


def test_the_allow_list_comes_from_the_runs_trialrun_toml_not_the_cwds(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "trialrun.toml").write_text('[tools.http_request]\nallow = ["127.0.0.1"]\n')
    monkeypatch.chdir(tmp_path)  # the working directory's file is not the run's
    assert not call("http_request", tmp_path, url=f"{server}/hello").ok
    given = settings({"tools": {"http_request": {"allow": ["127.0.0.1"], "max_bytes": 3}}})
    assert call("http_request", tmp_path, None, given, url=f"{server}/hello").ok
    cut = call("http_request", tmp_path, {"max_bytes": 2}, given, url=f"{server}/hello")
    assert cut.ok and cut.content.endswith("he\n\n[response cut at 2 bytes]")
    own = call("http_request", tmp_path, {"allow": ["x.example"]}, given, url=f"{server}/")
    assert not own.ok and "not allowed (allowed: x.example)" in own.content  # the task's wins


def test_a_large_body_is_cut(tmp_path: Path, server: str) -> None:
    got = call("http_request", tmp_path, {**LOOPBACK, "max_bytes": 1000}, url=f"{server}/big")
    assert got.ok
    body = got.content.split("\n\n", 1)[1]
    assert body == "a" * 1000 + "\n\n[response cut at 1000 bytes]"


def test_a_slow_server_is_a_timeout_error(tmp_path: Path, server: str) -> None:
    got = call("http_request", tmp_path, {**LOOPBACK, "timeout_s": 0.2}, url=f"{server}/slow")
    assert not got.ok and got.content.startswith("http_request: no answer from")


def test_the_tool_limit_covers_the_request_limit() -> None:
    (slow,) = load_pack("http_request", {"allow": ["*"], "timeout_s": 90})
    assert slow.timeout_s == 95.0  # past the toolbox's 30 s default


def test_a_redirect_to_a_host_not_allowed_is_refused(tmp_path: Path, server: str) -> None:
    got = call("http_request", tmp_path, LOOPBACK, url=f"{server}/away")
    assert not got.ok and "host 'localhost' is not allowed" in got.content


def test_bad_calls_and_options(tmp_path: Path) -> None:
    assert "unsupported method" in call(
        "http_request", tmp_path, LOOPBACK, url="http://127.0.0.1/", method="TRACE").content
    assert "no http(s) URL" in call(
        "http_request", tmp_path, LOOPBACK, url="file:///etc/passwd").content
    with pytest.raises(UserError, match="allow must be a list"):
        load_pack("http_request", {"allow": "127.0.0.1"})
    with pytest.raises(UserError, match="unknown option"):
        load_pack("http_request", {"hosts": []})


def test_host_patterns() -> None:
    assert host_matches("*.example.com", "api.example.com")
    assert not host_matches("*.example.com", "example.com")
    assert not host_matches("*.example.com", "badexample.com")
    assert host_matches("API.example.com", "api.example.com")
    assert host_matches("*", "anything.org")
