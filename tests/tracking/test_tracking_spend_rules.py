"""The merge gate's latency and cost rules fail only beyond noise (issue 25, item 1).

Runs are real run folders (conftest), blessed into real baselines and gated by `run_gate`;
the verdict functions are also checked on their own, with hypothesis.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.config import ProjectConfig
from trialrun.errors import UserError
from trialrun.metrics import percentile
from trialrun.reports import comparison_lines, comparisons_markdown, gate_lines
from trialrun.tracking import RuleResult, bless, gate_config, run_gate
from trialrun.tracking._bootstrap import (
    CACHED_TASKS,
    PairedTotals,
    _draw_task_picks,
    _kept_task_picks,
    _order_uniforms,
    _task_picks,
    quantile_draws,
)
from trialrun.tracking._spend_rules import cost_verdict, latency_verdict

LATENCY, COST = "P95 latency increase", "cost increase"
TASKS, K = 14, 3  # the README demo's golden suite: 14 tasks × k = 3


def scripted(seed: int) -> list[float]:
    """A scripted model's trial latencies: a few ms, with scheduling tails."""
    r = random.Random(seed)
    return [round(0.004 + r.lognormvariate(-4.6, 0.9), 6) for _ in range(TASKS * K)]


def loopback(seed: int) -> list[float]:
    """A loopback server answering after a fixed 0.3 s, with jitter and a rare slow trial."""
    r = random.Random(seed)
    return [
        round(
            0.3 + abs(r.gauss(0, 0.004)) + (r.expovariate(1 / 0.08) if r.random() < 0.1 else 0),
            6,
        )
        for _ in range(TASKS * K)
    ]


def _run(make_run, T, latencies: list[float], costs: list[float] | None = None) -> Path:
    specs = []
    for i in range(TASKS):
        trials = slice(i * K, (i + 1) * K)
        specs.append(
            T(
                f"g{i:02d}",
                n=K,
                latencies_s=latencies[trials],
                costs_usd=costs[trials] if costs else None,
            )
        )
    return make_run(specs)


def _gate(make_run, T, before, after, tmp_path, before_costs=None, after_costs=None, config=None):
    blessed = tmp_path / "baselines"
    bless(_run(make_run, T, before, before_costs), blessed)
    run = _run(make_run, T, after, after_costs)
    return run_gate("merge", run, baselines_dir=blessed, config=config or ProjectConfig())


def _rule(result, name: str) -> RuleResult:
    [rule] = [r for r in result.models[0].rules if r.rule == name]
    return rule


@pytest.mark.parametrize(
    ("sample", "seed", "point_ms"), [(scripted, 45, 16), (loopback, 59, 128)]
)
def test_a_rerun_of_the_same_distribution_passes(
    make_run, T, tmp_path, sample, seed, point_ms
) -> None:
    # the examples: the same model rerun; the pooled P95s differ by +16 / +128 ms,
    # which the old point rule (limit 15 ms) failed on
    result = _gate(make_run, T, sample(1), sample(seed), tmp_path)
    comparison = result.models[0].comparison
    assert comparison is not None and round(comparison.latency_delta_ms or 0) == point_ms
    rule = _rule(result, LATENCY)
    assert rule.status == "passed", rule.message
    assert f"(+{point_ms} ms, 95% bounds -" in rule.message
    assert rule.message.endswith("limit 15 ms: within noise")


def test_a_clear_shift_fails_with_its_bounds_shown(make_run, T, tmp_path) -> None:
    before = scripted(1)
    result = _gate(make_run, T, before, [x + 0.2 for x in scripted(45)], tmp_path)
    rule = _rule(result, LATENCY)
    assert rule.status == "failed"
    assert "(+216 ms, 95% bounds +" in rule.message
    assert rule.message.endswith("limit 15 ms: exceeded beyond noise")
    text = "\n".join(gate_lines(result))
    assert f"FAIL {LATENCY} [over {TASKS} tasks]: {rule.message}" in text


def _costs(seed: int, scale: float = 1.0) -> list[float]:
    """Per-trial costs around $0.001 (tokens vary from trial to trial, tasks differ)."""
    r = random.Random(seed)
    task_cost = [0.0005 + 0.0002 * i for i in range(TASKS)]
    noise = [r.lognormvariate(0, 0.3) for _ in range(TASKS * K)]
    return [round(task_cost[i // K] * noise[i] * scale, 8) for i in range(TASKS * K)]


def test_cost_fifty_percent_up_fails_and_noise_passes(make_run, T, tmp_path) -> None:
    lat = [1.0] * (TASKS * K)
    worse = _gate(make_run, T, lat, lat, tmp_path / "a", _costs(1), _costs(2, scale=1.5))
    rule = _rule(worse, COST)
    assert rule.status == "failed"
    assert "95% bounds +" in rule.message and rule.message.endswith("exceeded beyond noise")
    # a rerun whose mean cost per trial happens to be more than 10% up: noise
    seed = next(s for s in range(2, 200) if _mean(_costs(s)) > 1.1 * _mean(_costs(1)))
    same = _gate(make_run, T, lat, lat, tmp_path / "b", _costs(1), _costs(seed))
    rule = _rule(same, COST)
    assert rule.status == "passed" and rule.message.endswith("limit 10%: within noise")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def test_the_same_inputs_give_the_same_verdict(make_run, T, tmp_path) -> None:
    first = _gate(make_run, T, loopback(1), loopback(59), tmp_path / "a")
    again = _gate(make_run, T, loopback(1), loopback(59), tmp_path / "b")
    assert [r.message for r in first.models[0].rules] == [r.message for r in again.models[0].rules]
    # and whatever order the trials come in, and whether the draws were kept or drawn anew
    before, after = loopback(1), loopback(59)
    verdict = _latency(before, after)
    _order_uniforms.cache_clear()
    assert _latency(before, after) == verdict
    random.Random(3).shuffle(before)
    random.Random(4).shuffle(after)
    assert _latency(before, after) == verdict


def _latency(before, after, ms: float | None = 15, confidence: float = 0.95):
    return latency_verdict(
        percentile(before, 95) or 0.0,
        percentile(after, 95) or 0.0,
        before,
        after,
        max_ms=ms,
        max_pct=None,
        confidence=confidence,
    )


def test_the_confidence_is_configurable_and_checked(make_run, T, tmp_path) -> None:
    loose = ProjectConfig(data={"gates": {"merge": {"spend_confidence": 0.5}}})
    result = _gate(make_run, T, loopback(1), loopback(59), tmp_path, config=loose)
    assert "50% bounds" in _rule(result, LATENCY).message
    bad = ProjectConfig(data={"gates": {"merge": {"spend_confidence": 1.5}}})
    with pytest.raises(UserError, match=r"\[gates.merge\] spend_confidence: "):
        gate_config("merge", bad)


def test_relative_latency_and_dollar_cost_limits_show_their_bounds(make_run, T, tmp_path) -> None:
    limits = {
        "max_p95_latency_increase_ms": False,
        "max_p95_latency_increase_pct": 5,
        "max_cost_increase_pct": False,
        "max_cost_increase_usd": 0.0001,
    }
    config = ProjectConfig(data={"gates": {"merge": limits}})
    slower = [x * 1.5 for x in loopback(59)]
    result = _gate(
        make_run, T, loopback(1), slower, tmp_path, _costs(1), _costs(2, 2.0), config=config
    )
    latency = _rule(result, LATENCY)
    assert latency.status == "failed"
    assert "95% bounds +" in latency.message and "; limit 5%: exceeded beyond noise" in (
        latency.message
    )
    spent = _rule(result, COST)
    assert spent.status == "failed"
    assert "95% bounds +$0.0" in spent.message
    assert spent.message.endswith("limit $0.0001: exceeded beyond noise")


def test_a_zero_cost_baseline_skips_the_relative_cost_rule(make_run, T, tmp_path) -> None:
    lat = [1.0] * (TASKS * K)
    free = [0.0] * (TASKS * K)
    result = _gate(make_run, T, lat, lat, tmp_path, free, _costs(2))
    rule = _rule(result, COST)
    assert rule.status == "skipped"
    assert "baseline cost is 0, a relative limit cannot apply" in rule.message


def test_few_trials_are_said(make_run, T, tmp_path) -> None:
    blessed = tmp_path / "baselines"
    bless(make_run([T("g1", n=3, latencies_s=[0.30, 0.31, 0.32])]), blessed)
    run = make_run([T("g1", n=3, latencies_s=[0.30, 0.31, 0.36])])
    result = run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig())
    rule = _rule(result, LATENCY)
    assert rule.status == "passed"
    assert "few trials (3 → 3): the P95 is near the slowest one, the bounds are wide" in (
        rule.message
    )


def test_an_old_baseline_without_raw_latencies_is_judged_on_its_p95(make_run, T, tmp_path) -> None:
    blessed = tmp_path / "baselines"
    bless(make_run([T("g1", latency_s=1.0)]), blessed)
    [path] = blessed.glob("*.json")
    data = json.loads(path.read_text())
    for task in data["tasks"]:
        del task["metrics"]["latencies_s"]
    path.write_text(json.dumps(data))
    run = make_run([T("g1", latency_s=1.1)])
    rule = _rule(run_gate("merge", run, baselines_dir=blessed, config=ProjectConfig()), LATENCY)
    assert rule.status == "failed"
    assert "no per-trial latencies on one side" in rule.message
    assert "no bounds, the P95s judged alone" in rule.message


def test_one_task_with_a_cost_has_no_bounds_and_says_so() -> None:
    one = [PairedTotals(0.003, 3, 0.006, 3)]
    verdict = cost_verdict(0.001, 0.002, one, max_pct=10, max_usd=None, confidence=0.95)
    assert verdict is not None and verdict.failed
    assert "1 task(s) with a cost: no bounds (they resample tasks)" in verdict.message


def test_kept_task_resamples_are_the_ones_drawn_anew() -> None:
    # up to CACHED_TASKS tasks the resamples are kept; past it they are drawn each time
    column = [float(i) for i in range(12)]
    kept = [pick(column) for pick in _kept_task_picks(12, 50)]
    assert kept == [pick(column) for pick in _draw_task_picks(12, 50)]
    assert len(set(kept)) > 1
    assert _task_picks(CACHED_TASKS + 1, 5) is not _task_picks(CACHED_TASKS + 1, 5)
    assert _task_picks(CACHED_TASKS, 5) is _task_picks(CACHED_TASKS, 5)


def test_quantile_draws_are_the_bootstrap_of_the_p95() -> None:
    # two values a < b: a resample is (a, a), (b, b) or mixed (a quarter, a quarter, a
    # half); its P95 is a, b or a + 0.95 (b - a)
    draws = quantile_draws([1.0, 2.0], 95, 20000)
    share = {v: draws.count(v) / len(draws) for v in (1.0, 2.0, 1.95)}
    assert sum(share.values()) == pytest.approx(1.0)
    assert share[1.0] == pytest.approx(0.25, abs=0.02)
    assert share[2.0] == pytest.approx(0.25, abs=0.02)
    assert share[1.95] == pytest.approx(0.5, abs=0.02)


latencies = st.lists(
    st.floats(min_value=0.001, max_value=30, allow_nan=False), min_size=1, max_size=200
)
limits = st.floats(min_value=0, max_value=500)


@settings(max_examples=60, deadline=None)
@given(latencies, limits)
def test_identical_samples_never_fail(sample: list[float], limit: float) -> None:
    assert not _latency(sample, list(sample), ms=limit).failed


@settings(max_examples=60, deadline=None)
@given(latencies, latencies, limits)
def test_a_shift_beyond_every_noise_always_fails(
    before: list[float], after: list[float], limit: float
) -> None:
    # every trial after is slower than the slowest before by more than the limit
    floor = max(before) + limit / 1000 + 0.001
    shifted = [floor + x for x in after]
    verdict = _latency(before, shifted, ms=limit)
    assert verdict.failed and "exceeded beyond noise" in verdict.message


costs = st.lists(
    st.tuples(st.floats(min_value=0.0001, max_value=1), st.integers(min_value=1, max_value=10)),
    min_size=2,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(costs, st.floats(min_value=0, max_value=100), st.floats(min_value=0.5, max_value=100))
def test_cost_same_never_fails_and_scaled_beyond_the_limit_always_fails(
    tasks: list[tuple[float, int]], limit: float, margin: float
) -> None:
    same = [PairedTotals(c * n, n, c * n, n) for c, n in tasks]
    before = sum(c * n for c, n in tasks) / sum(n for _, n in tasks)
    verdict = cost_verdict(before, before, same, max_pct=limit, max_usd=None, confidence=0.95)
    assert verdict is not None and not verdict.failed
    factor = 1 + (limit + margin) / 100  # every task's cost up by more than the limit
    scaled = [PairedTotals(c * n, n, c * n * factor, n) for c, n in tasks]
    verdict = cost_verdict(
        before, before * factor, scaled, max_pct=limit, max_usd=None, confidence=0.95
    )
    assert verdict is not None and verdict.failed


def test_compare_and_the_markdown_report_show_the_gates_bounds(make_run, T, tmp_path) -> None:
    # the loopback rerun: compare's P95 line and cost line carry the very bounds the merge
    # gate's rules judge by, in the text, the Markdown table and --json
    lat_before, lat_after = loopback(1), loopback(59)
    result = _gate(make_run, T, lat_before, lat_after, tmp_path, _costs(1), _costs(2))
    c = result.models[0].comparison
    assert c is not None
    latency_rule, cost_rule = _rule(result, LATENCY), _rule(result, COST)
    shown_latency = latency_rule.message.split("(+128 ms, ")[1].split(")")[0]
    assert shown_latency.startswith("95% bounds -")
    text = "\n".join(comparison_lines(c))
    assert f"(+128 ms, {shown_latency})" in text
    shown_cost = cost_rule.message.split("%, ")[1].split(")")[0]
    assert shown_cost.startswith("95% bounds ") and f", {shown_cost})" in text
    assert shown_latency in comparisons_markdown([c])
    low, high = c.to_dict()["latency_p95_delta_bounds_ms"]
    assert f"{low:+.0f}…{high:+.0f} ms" in shown_latency
