"""`browser_navigate` fetches a page from a real loopback server and returns its title
and readable text, under the same allow rules as http_request (its own table first)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tools_support import call, settings
from web_server import serving

from trialrun.tools import tool_pack_problem
from trialrun.tools.browser_navigate import readable_text


@pytest.fixture()
def server() -> Iterator[str]:
    with serving() as url:
        yield url


def test_a_page_becomes_readable_text(tmp_path: Path, server: str) -> None:
    got = call("browser_navigate", tmp_path, {"allow": ["127.0.0.1"]}, url=f"{server}/page",
               wait_for="networkidle")
    assert got.ok, got.content
    assert got.content == (
        f"URL: {server}/page (HTTP 200)\nTitle: Ferry times\n\n"
        "Ferries\nThe first ferry leaves at 06:40.\nPier 3\nPier 4"
    )


def test_default_deny_is_a_tool_error(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert tool_pack_problem("browser_navigate") is None
    got = call("browser_navigate", tmp_path, url=f"{server}/page")
    assert not got.ok
    assert got.content.startswith("browser_navigate: no host is allowed; set "
                                  "[tools.browser_navigate] allow")


def test_the_allow_list_is_its_own_table_else_http_requests(tmp_path: Path, server: str) -> None:
    shared = {"http_request": {"allow": ["127.0.0.1"]}}
    assert call("browser_navigate", tmp_path, None, settings({"tools": shared}),
                url=f"{server}/page").ok  # fmt: skip
    own = {**shared, "browser_navigate": {"allow": ["*.example.org"]}}
    denied = call("browser_navigate", tmp_path, None, settings({"tools": own}),
                  url=f"{server}/page")  # fmt: skip
    assert not denied.ok and "not allowed (allowed: *.example.org)" in denied.content


def test_a_large_page_is_cut(tmp_path: Path, server: str) -> None:
    got = call("browser_navigate", tmp_path, {"allow": ["127.0.0.1"], "max_bytes": 300},
               url=f"{server}/big")
    assert got.ok and got.content.endswith("a" * 300 + "\n\n[page cut at 300 bytes]")


@given(st.text(max_size=200))
def test_readable_text_never_keeps_markup_or_scripts(words: str) -> None:
    html = f"<html><script>alert('x')</script><body><p>{words}</p></body></html>"
    title, text = readable_text(html)
    assert "alert" not in text or "alert" in words
    assert title == ""
    assert "\n\n" not in text
