"""The research tool packs (`calculator`, `file_read`) and the Wilson interval."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun.errors import UserError
from trialrun.metrics import wilson_interval
from trialrun.tools import ToolContext, ToolError, load_pack
from trialrun.tools.research import evaluate


def call(pack: str, workspace: Path, **arguments: object):
    (tool,) = load_pack(pack)
    return asyncio.run(tool.call(ToolContext(workspace), arguments))


@pytest.mark.parametrize(
    ("expression", "value"),
    [("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("2 ** 10", 1024), ("2 ^ 3", 8), ("7 // 2", 3),
     ("7 % 4", 3), ("-3 + +1", -2), ("sqrt(16)", 4.0), ("round(2.567, 1)", 2.6)],
)
def test_calculator_evaluates(expression: str, value: float) -> None:
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    "expression",
    ["__import__('os')", "open('x')", "1/0", "2 ** 100000", "a + 1", "[1, 2]", "1 +", "x" * 2000],
)
def test_calculator_refuses(expression: str) -> None:
    with pytest.raises(ToolError):
        evaluate(expression)


def test_calculator_tool_result(tmp_path: Path) -> None:
    assert call("calculator", tmp_path, expression="6 * 7").content == "42"
    bad = call("calculator", tmp_path, expression="import os")
    assert not bad.ok and "calculator" in bad.content


def test_file_read_inside_the_workspace_only(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    (tmp_path.parent / "secret.txt").write_text("no")
    ok = call("file_read", tmp_path, path="data.csv")
    assert ok.ok and ok.content == "a,b\n1,2\n"
    outside = call("file_read", tmp_path, path="../secret.txt")
    assert not outside.ok and "outside" in outside.content
    missing = call("file_read", tmp_path, path="nope.txt")
    assert not missing.ok and "not found" in missing.content


def test_packs_take_no_options() -> None:
    with pytest.raises(UserError, match="takes no options"):
        load_pack("calculator", {"x": 1})


@pytest.mark.parametrize(
    ("c", "n", "low", "high"),
    [(7, 10, 0.396778, 0.892209), (0, 10, 0.0, 0.277533), (10, 10, 0.722467, 1.0),
     (1, 2, 0.094531, 0.905469)],
)
def test_wilson_interval_known_values(c: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(c, n)
    assert lo == pytest.approx(low, abs=1e-6)
    assert hi == pytest.approx(high, abs=1e-6)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 0.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


@given(st.integers(0, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_contains_the_rate(cn: tuple[int, int]) -> None:
    c, n = cn
    lo, hi = wilson_interval(c, n)
    assert 0.0 <= lo <= hi <= 1.0
    if n:
        assert lo - 1e-12 <= c / n <= hi + 1e-12
