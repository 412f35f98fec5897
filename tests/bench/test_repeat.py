"""bench/_repeat.py: min/median/max over at least three repetitions, paired ratios."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench_scripts import load_bench

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load() -> ModuleType:
    return load_bench("_repeat.py", "bench_repeat")


repeat_mod = _load()
finite = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(st.lists(finite, min_size=3, max_size=30), st.lists(finite, min_size=3, max_size=30))
def test_series_reports_min_median_max_and_the_loads(
    values: list[float], loads: list[float]
) -> None:
    series = repeat_mod.Series("x", "ms")
    for value, load in zip(values, loads * 10, strict=False):
        series.add(value, load)
    assert (series.low, series.median, series.high) == (
        min(values), statistics.median(values), max(values))
    used = (loads * 10)[: len(values)]
    assert series.as_json() == {
        "median": statistics.median(values), "min": min(values), "max": max(values),
        "n": len(values), "loads": [round(x, 2) for x in used],
    }
    line = series.line()
    assert line.startswith("x: median ") and f"n={len(values)}" in line
    assert f"load {min(used):.1f}–{max(used):.1f}" in line


def test_line_shows_the_figures_and_the_load_range() -> None:
    series = repeat_mod.Series("trials/s", "trials/s")
    for value, load in ((570.0, 0.4), (642.0, 1.9), (693.0, 1.2)):
        series.add(value, load)
    assert series.line() == (
        "trials/s: median 642 trials/s (min 570, max 693; n=3; load 0.4–1.9)")


@pytest.mark.parametrize("asked", [0, 1, 2, 3, 5])
def test_repeat_runs_at_least_three_times(asked: int) -> None:
    calls: list[int] = []

    def measure() -> float:
        calls.append(1)
        return float(len(calls))

    series = repeat_mod.repeat("n", measure, times=asked)
    assert len(calls) == max(asked, 3) == len(series.values) == len(series.loads)
    assert series.values == [float(i + 1) for i in range(max(asked, 3))]


@given(st.lists(st.tuples(finite, finite), min_size=3, max_size=12))
def test_paired_ratio_is_taken_within_each_pair(pairs: list[tuple[float, float]]) -> None:
    first, second = iter([a for a, _ in pairs]), iter([b for _, b in pairs])
    a, b, ratio = repeat_mod.paired(
        "p", lambda: next(first), lambda: next(second), times=len(pairs))
    assert a.values == [x for x, _ in pairs] and b.values == [y for _, y in pairs]
    assert ratio.values == [x / y for x, y in pairs]
    assert a.loads == b.loads == ratio.loads  # one load per pair, noted before it


def test_paired_ratio_is_not_the_ratio_of_medians() -> None:
    # 1/1, 10/20, 100/50: per-pair ratios 1, 0.5, 2 (median 1); medians 10/20 = 0.5
    first, second = iter([1.0, 10.0, 100.0]), iter([1.0, 20.0, 50.0])
    a, b, ratio = repeat_mod.paired("p", lambda: next(first), lambda: next(second))
    assert ratio.values == [1.0, 0.5, 2.0] and ratio.median == 1.0
    assert a.median / b.median == 0.5


def test_paired_runs_at_least_three_pairs() -> None:
    order: list[str] = []

    def first() -> float:
        order.append("a")
        return 2.0

    def second() -> float:
        order.append("b")
        return 1.0

    _, _, ratio = repeat_mod.paired("p", first, second, times=1)
    assert order == ["a", "b"] * 3 and len(ratio.values) == 3 and ratio.median == 2.0


def test_spread_is_a_median_with_its_range() -> None:
    assert repeat_mod.spread([0.025, 0.02, 0.03]) == "2.5% (2.0%–3.0%)"
    assert repeat_mod.spread([120, 86, 150], ".0f") == "120 (86–150)"


@pytest.mark.parametrize("given_text", ["1", "2", "0", "-4", "three"])
def test_repeats_flag_refuses_fewer_than_three(
    given_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="bench")
    repeat_mod.add_repeats_arg(parser)
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["--repeats", given_text])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("bench: error: argument --repeats:")


def test_repeats_flag_defaults_to_three() -> None:
    parser = argparse.ArgumentParser()
    repeat_mod.add_repeats_arg(parser)
    assert parser.parse_args([]).repeats == 3
    assert parser.parse_args(["--repeats", "7"]).repeats == 7



@pytest.mark.parametrize(
    "script", sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")))
def test_every_bench_script_repeats_through_the_helper(script: str) -> None:
    source = (BENCH / script).read_text(encoding="utf-8")
    assert "add_repeats_arg(parser)" in source, f"bench/{script} has no --repeats flag"
    assert "from _repeat import" in source, f"bench/{script} does not use bench/_repeat.py"
