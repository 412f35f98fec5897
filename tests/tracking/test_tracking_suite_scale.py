"""The suite test at scale: the same float as the exact integers, in near-linear work.

`lower_tail` must give bit for bit the float of the exact ratio (the old convolution of
integers, kept as `exact_tail`); compare's interpreted work must grow about linearly
with the trials (line events counted, not time).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trialrun.tracking._suite_significance as significance
from trialrun.rundir import Manifest, ResultLine, RunDir
from trialrun.tracking import compare_runs, stratified_p_value
from trialrun.tracking._lower_tail import exact_tail, lower_tail

MODEL = "openai-compat:scale-model-2026-01-01"


def _laws(strata: list[tuple[int, int, int, int]]) -> tuple[list[Any], int]:
    laws, offset, observed = [], 0, 0
    for c_b, n_b, c_a, n_a in strata:
        total, succ = n_b + n_a, c_b + c_a
        low, high = max(0, n_a - (total - succ)), min(succ, n_a)
        weights = [
            math.comb(succ, x) * math.comb(total - succ, n_a - x) for x in range(low, high + 1)
        ]
        laws.append((weights, math.comb(total, n_a)))
        offset += low
        observed += c_a
    return laws, observed - offset


@st.composite
def strata(draw: st.DrawFn) -> list[tuple[int, int, int, int]]:
    out = []
    for _ in range(draw(st.integers(1, 40))):
        n_b, n_a = draw(st.integers(1, 12)), draw(st.integers(1, 12))
        out.append((draw(st.integers(0, n_b)), n_b, draw(st.integers(0, n_a)), n_a))
    return out


@settings(max_examples=300, deadline=None)
@given(strata(), st.booleans())
def test_lower_tail_is_the_exact_float(cases: list[tuple[int, int, int, int]], mid: bool) -> None:
    laws, index = _laws(cases)
    assert lower_tail(laws, index, mid) == exact_tail(laws, index, mid)


@pytest.mark.parametrize("drop", [0, 1, 2, 5])
def test_far_tails_and_zero_agree(drop: int) -> None:
    """Drops from none to every task losing five solves (a tail far below any float)."""
    cases = [(8 + i % 3, 10, max(0, 8 + i % 3 - drop * (i % 2)), 10) for i in range(120)]
    laws, index = _laws(cases)
    for mid in (False, True):
        assert lower_tail(laws, index, mid) == exact_tail(laws, index, mid)


def _write_run(out: Path, tasks: int, k: int) -> Path:
    ids = [f"t{i:05d}" for i in range(tasks)]
    metas: list[dict[str, Any]] = [{"task_id": t, "suite": "golden", "k": k} for t in ids]
    manifest = Manifest(run_id="r", started_at="2026-01-01T00:00:00+00:00", models=[MODEL],
                        trialrun_version="test", tasks=metas)
    run = RunDir.create(out, "r", manifest, fsync=False)
    for i, task_id in enumerate(ids):
        for trial in range(k):
            ok = (i * 7 + trial * 3) % 5 > 0
            run.append(ResultLine(task_id=task_id, model=MODEL, trial=trial, passed=ok,
                                  solve=ok, latency_s=0.5 + (i % 13) * 0.1, cost_usd=0.001),
                       sync=False)
    run.close()
    return run.path


def _line_events(action: Any) -> int:
    """Lines the interpreter ran inside trialrun's tracking package while `action` ran."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if "trialrun/tracking" not in frame.f_code.co_filename:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        action()
    finally:
        sys.settrace(None)
    return count


def test_compare_work_grows_about_linearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four times the tasks: at most about five times the interpreted lines (the old
    integer convolution ran sixteen times as many). The exact path of small suites is
    turned off so the large-suite path is what is counted."""
    monkeypatch.setattr(significance, "EXACT_UP_TO", 0, raising=False)
    small = _write_run(tmp_path / "small", 100, 6)
    large = _write_run(tmp_path / "large", 400, 6)
    assert compare_runs(small, small, alpha=0.05)[0].suite_tests[0].p_value > 0.4
    few = _line_events(lambda: compare_runs(small, small, alpha=0.05, method="exact"))
    many = _line_events(lambda: compare_runs(large, large, alpha=0.05, method="exact"))
    assert many / few < 5.5, (few, many)


def test_stratified_p_value_at_scale_matches_small_rule() -> None:
    """The public test's answer past `EXACT_UP_TO` equals the exact integers'."""
    cases = [(7 + i % 4, 10, 6 + i % 5, 10) for i in range(150)]
    laws, index = _laws(cases)
    assert stratified_p_value(cases) == exact_tail(laws, index, False)
    assert stratified_p_value(cases, "mid-p") == exact_tail(laws, index, True)
