"""Tool packs `mcp` (a real stdio MCP server written for the test) and `python`."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from trialrun.errors import UserError
from trialrun.tools import TOOL_PACKS, Toolbox, ToolContext, load_pack

SERVER = Path(__file__).resolve().parents[1] / "servers" / "mcp_test_server.py"


def call(box: Toolbox, name: str, **args):
    return asyncio.run(box.call(name, args))


@pytest.fixture(scope="module")
def mcp_tools():
    pytest.importorskip("mcp")
    return load_pack("mcp", {"command": [sys.executable, str(SERVER)]})


def test_mcp_tools_are_listed_with_schemas(mcp_tools):
    by_name = {t.name: t for t in mcp_tools}
    assert {"add", "echo", "where", "counter", "fail"} <= set(by_name)
    assert by_name["add"].description == "Add two integers."
    params = by_name["add"].parameters
    assert set(params["properties"]) == {"a", "b"} and set(params["required"]) == {"a", "b"}


def test_mcp_calls_return_results_and_errors_are_tool_errors(mcp_tools, tmp_path):
    box = Toolbox(mcp_tools, ToolContext(tmp_path, "t"))
    assert call(box, "add", a=2, b=40).content == "42"
    assert call(box, "echo", text="héllo").content == "héllo"
    failed = call(box, "fail", reason="disk on fire")
    assert failed.ok is False and "disk on fire" in failed.content
    wrong = call(box, "add", a="two", b=1)  # checked against the server's schema first
    assert wrong.ok is False and "integer" in wrong.content


def test_mcp_run_lifetime_shares_one_server_across_trials_and_loops(mcp_tools, tmp_path):
    box = Toolbox(mcp_tools, ToolContext(tmp_path, "t"))
    first = int(call(box, "counter").content)  # each call() runs on a new event loop
    second = int(call(box, "counter").content)
    assert second == first + 1


def test_mcp_trial_lifetime_starts_a_server_in_each_workspace(tmp_path):
    pytest.importorskip("mcp")
    tools = load_pack("mcp", {"command": [sys.executable, str(SERVER)], "lifetime": "trial",
                              "prefix": "t_"})  # fmt: skip
    assert "t_where" in {t.name for t in tools}
    results = []
    for name in ("a", "b"):
        ws = tmp_path / name
        ws.mkdir()
        box = Toolbox(tools, ToolContext(ws, "t"))
        results.append((call(box, "t_where").content, call(box, "t_counter").content))
    assert results == [(str(tmp_path / "a"), "1"), (str(tmp_path / "b"), "1")]


def test_mcp_bad_command_is_a_user_error():
    pytest.importorskip("mcp")
    with pytest.raises(UserError, match="tool pack mcp: could not start"):
        load_pack("mcp", {"command": [sys.executable, "-c", "import sys; sys.exit(4)"]})
    with pytest.raises(UserError, match="give command"):
        load_pack("mcp", {})
    with pytest.raises(UserError, match="unknown option"):
        load_pack("mcp", {"command": ["x"], "cmd": 1})


def test_python_pack_turns_user_functions_into_tools(tmp_path, monkeypatch):
    (tmp_path / "h4_user_tools.py").write_text(
        textwrap.dedent(
            '''
            from trialrun.tools import tool

            def forecast(city: str, days: int = 1) -> str:
                """Weather forecast for a city.

                Args:
                    city: the city name
                    days: how many days
                """
                return f"{city}: sunny for {days} day(s)"

            @tool(name="where_am_i")
            def where(ctx) -> str:
                """The workspace folder."""
                return str(ctx.workspace)
            '''
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    tools = load_pack("python", {"functions": ["h4_user_tools:forecast", "h4_user_tools:where"]})
    assert [t.name for t in tools] == ["forecast", "where_am_i"]
    assert tools[0].parameters["required"] == ["city"]
    assert tools[0].parameters["properties"]["days"]["type"] == "integer"
    box = Toolbox(tools, ToolContext(tmp_path, "t"))
    assert call(box, "forecast", city="Oslo", days=2).content == "Oslo: sunny for 2 day(s)"
    assert call(box, "where_am_i").content == str(tmp_path)
    with pytest.raises(UserError, match=r"functions\[0\].*cannot import"):
        load_pack("python", {"functions": ["h4_no_such_mod:f"]})
    with pytest.raises(UserError, match="give functions"):
        load_pack("python", {})


def test_missing_mcp_sdk_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(
        UserError,
        match=r"^tool pack mcp: the mcp SDK is not installed; pip install -e '\.\[mcp\]'$",
    ):
        load_pack("mcp", {"command": [sys.executable, str(SERVER)]})


def test_every_builtin_pack_is_registered():
    assert {"mcp", "python", "vault"} <= set(TOOL_PACKS.names())
