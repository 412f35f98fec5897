"""Means and sums of turns, tokens and costs are exactly rounded: each is `math.fsum` of the
lines' values (then divided by their count), whether it is read per task (the row, its
tracked metrics, tracking's per-task metrics) or over the run (the aggregate, which adds
the tasks' exact sums), and whatever order the lines came in. `aggregate(rows, lines)`
(one tally of every line, in file order) gives the same doubles as the summary's
aggregate over its per-task tallies."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from trialrun.metrics import ZERO, aggregate, combined, plus, rounded, summarize
from trialrun.rundir import ResultLine
from trialrun.tracking._trial_tally import TrialTally

MODEL = "openai-compat:exact-2026-01-01"
TRACKED = ["cost", "tokens", "turns"]

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)
cost = st.one_of(st.none(), st.sampled_from([0.1, 0.2, 0.3, 1e-4, 3e-4]), finite)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.floats(min_value=-1e300, max_value=1e300)), st.data())
@example([0.1, 0.2, 0.3], None)
def test_an_exact_sum_is_fsum_in_any_grouping(values: list[float], data: Any) -> None:
    total = ZERO
    for value in values:
        total = plus(total, value)
    assert rounded(total) == math.fsum(values)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=4))) if data else []
    groups = [values[a:b] for a, b in zip([0, *cuts], [*cuts, len(values)], strict=True)]
    sums = []
    for group in groups:
        part = ZERO
        for value in group:
            part = plus(part, value)
        sums.append(part)
    assert combined(sums) == math.fsum(values)


@st.composite
def runs(draw: st.DrawFn) -> list[ResultLine]:
    """A few tasks' lines in some file order: turns, token counts and costs of any kind
    (ints, floats, none), some infra errors (their costs count in the run's cost)."""
    out = []
    for task in range(draw(st.integers(1, 4))):
        for trial in range(draw(st.integers(1, 5))):
            infra = draw(st.booleans()) and draw(st.booleans())
            out.append(ResultLine(
                task_id=f"t{task}", model=MODEL, trial=trial, passed=not infra, solve=True,
                turns=draw(st.one_of(st.none(), st.integers(0, 50), finite)),
                tokens={"prompt": draw(st.integers(0, 10**6)),
                        "completion": draw(st.one_of(st.integers(0, 10**4), finite))},
                cost_usd=draw(cost), latency_s=1.0,
                error={"kind": "infra", "message": "down"} if infra else None))
    return draw(st.permutations(out))


def _numbers(lines: list[ResultLine], figure: Any) -> list[float]:
    values = (figure(line) for line in lines)
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@settings(max_examples=300, deadline=None)
@given(runs())
@example([ResultLine(task_id=t, model=MODEL, trial=i, passed=True, solve=True, turns=1,
                     cost_usd=c, latency_s=1.0)
          for t, costs in (("a", (0.1, 0.2)), ("b", (0.3,))) for i, c in enumerate(costs)])
def test_every_path_gives_the_fsum_of_the_lines(lines: list[ResultLine]) -> None:
    metas = [{"task_id": t, "k": 1, "tracked_metrics": TRACKED}
             for t in sorted({line.task_id for line in lines})]
    summary = summarize(lines, metas, models=[MODEL], k=1)
    counted = [line for line in lines if not line.is_infra]
    turns = _numbers(counted, lambda x: x.turns)
    costs = _numbers(lines, lambda x: x.cost_usd)
    run = summary.aggregate[MODEL]
    assert run["mean_turns"] == _mean(turns)
    assert run["cost_usd"] == (math.fsum(costs) if costs else None)
    in_file_order = aggregate(summary.tasks, lines)  # one tally of every line
    assert (in_file_order["mean_turns"], in_file_order["cost_usd"]) == (
        run["mean_turns"], run["cost_usd"])
    for row in summary.tasks:
        own = [x for x in counted if x.task_id == row.task_id]
        tokens = [float(x.tokens["prompt"]) + float(x.tokens["completion"])
                  for x in own if isinstance(x.tokens, dict)]
        assert row.mean_turns == _mean(_numbers(own, lambda x: x.turns))
        assert row.tracked == {"turns": row.mean_turns, "tokens": _mean(tokens),
                               "cost": _mean(_numbers(own, lambda x: x.cost_usd))}
        tally = TrialTally()
        for line in lines:
            if line.task_id == row.task_id:
                tally.add(line)
        n = len(own)
        metrics = tally.metrics()
        assert metrics["turns"] == (math.fsum(_numbers(own, lambda x: x.turns)) / n
                                    if n else None)
        assert metrics["cost_usd"] == (math.fsum(_numbers(own, lambda x: x.cost_usd)) / n
                                       if n else None)
        assert metrics["tokens"] == (math.fsum(tokens) / n if n else None)  # none: 0
