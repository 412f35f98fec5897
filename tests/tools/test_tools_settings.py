"""`ToolSettings`: trialrun.toml's [tools] tables read and checked once, then carried to
the packs (and pickled to worker processes and Ray workers) as a plain record."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st
from tools_support import settings

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.tools import ToolSettings, load_pack
from trialrun.tools._web_access import WebTable

HOSTS = st.lists(st.from_regex(r"(\*\.)?[a-z][a-z0-9-]{0,10}(\.[a-z]{2,5}){0,2}", fullmatch=True),
                 min_size=1, max_size=4)  # fmt: skip
TOML_VALUES = st.recursive(
    st.none() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=6,
)  # fmt: skip


def test_no_file_is_the_defaults_nothing_configured() -> None:
    assert ToolSettings.from_config(ProjectConfig()) == ToolSettings()
    defaults = ToolSettings()
    assert defaults.unjailed is False
    assert defaults.http_request == defaults.browser_navigate == WebTable()
    assert defaults.web_search == defaults.image_generate == {}


def test_the_tables_are_read_and_pickle_as_they_are() -> None:
    read = settings({"tools": {
        "unjailed": True,
        "http_request": {"allow": ["api.example.com"], "timeout_s": 5, "max_bytes": 100},
        "browser_navigate": {"allow": ["*.example.org"]},
        "web_search": {"provider": "searxng", "url": "http://127.0.0.1:9/search"},
        "image_generate": {"provider": "openai", "timeout_s": 2.5},
    }})  # fmt: skip
    assert read.unjailed is True
    assert read.http_request == WebTable(("api.example.com",), 5.0, 100)
    assert read.browser_navigate == WebTable(("*.example.org",), None, None)
    assert read.web_search == {"provider": "searxng", "url": "http://127.0.0.1:9/search"}
    assert read.image_generate == {"provider": "openai", "timeout_s": 2.5}
    assert pickle.loads(pickle.dumps(read)) == read  # what a worker's job carries


@examples(deadline=None)  # the first example loads the providers' registries
@given(TOML_VALUES)
def test_unjailed_is_true_or_false_else_one_line(value: Any) -> None:
    config = ProjectConfig(Path("/p/trialrun.toml"), {"tools": {"unjailed": value}})
    with pytest.raises(UserError) as refused:
        ToolSettings.from_config(config)
    text = str(refused.value)
    assert text.startswith("/p/trialrun.toml: [tools] unjailed = ") and "\n" not in text


@examples(deadline=None)  # the first example imports every built-in pack
@given(HOSTS, st.integers(1, 10**9))
def test_an_allow_list_in_the_file_is_the_packs(hosts: list[str], max_bytes: int) -> None:
    configured = settings({"tools": {"http_request": {"allow": hosts, "max_bytes": max_bytes}}})
    assert configured.http_request == WebTable(tuple(hosts), None, max_bytes)
    # browser_navigate falls back to [tools.http_request]; its timeout is the default's
    (tool,) = load_pack("browser_navigate", {}, configured)
    assert tool.timeout_s == 35.0


def test_a_pack_built_without_settings_gets_the_defaults() -> None:
    """A direct `load_pack` (no run): nothing allowed, nothing unjailed, no provider."""
    (tool,) = load_pack("http_request", {"timeout_s": 7})
    assert tool.timeout_s == 12.0
    configured = settings({"tools": {"http_request": {"allow": ["x.example"], "timeout_s": 3}}})
    (tool,) = load_pack("http_request", {}, configured)
    assert tool.timeout_s == 8.0  # the file's time limit, plus the margin
