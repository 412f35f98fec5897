"""`TrialColumns`: every results line's page facts as columns, read back exactly as the
line wrote them (an integer stays an integer, null stays null)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trialrun.reports._trial_columns import STATUSES, TrialColumns, trial_status
from trialrun.rundir import ResultLine

_FIGURE = st.none() | st.integers(0, 2**53) | st.floats(0, 1e12, allow_nan=False)


@st.composite
def _lines(draw: st.DrawFn) -> ResultLine:
    error = draw(st.sampled_from([None, {"kind": "infra", "message": "x"},
                                  {"kind": "agent", "message": "y"}]))
    verdicts = [{"grader": draw(st.sampled_from(["a", "b"])), "passed": draw(st.booleans())}
                for _ in range(draw(st.integers(0, 3)))]
    return ResultLine(
        task_id="t", model="m", trial=draw(st.integers(0, 10**6)),
        passed=draw(st.none() | st.booleans()), solve=draw(st.none() | st.booleans()),
        error=error, verdicts=verdicts,
        tool_calls=[{"name": "x"}] * draw(st.integers(0, 3)),
        turns=draw(_FIGURE), cost_usd=draw(_FIGURE), latency_s=draw(_FIGURE),
        extra={"final_text": draw(st.text(max_size=300))},
    )


@given(st.lists(_lines(), max_size=20))
def test_columns_read_back_what_each_line_says(lines: list[ResultLine]) -> None:
    columns = TrialColumns()
    for offset, line in enumerate(lines):
        columns.add(offset * 100, line)
    assert len(columns) == len(lines)
    for i, line in enumerate(lines):
        entry = columns.entry(i)
        for key, value in (("latency_s", line.latency_s), ("cost_usd", line.cost_usd),
                           ("turns", line.turns)):
            assert entry[key] == value and type(entry[key]) is type(value)
        assert entry["status"] == trial_status(line) and entry["line"] == i
        assert entry["trial"] == line.trial and entry["tool_calls"] == len(line.tool_calls)
        assert entry["final_text"] == (line.final_text or "")[:200]
        assert entry["error"] == line.error
        assert set(entry["failed_graders"]) == {
            v["grader"] for v in line.verdicts if v["passed"] is False}
        assert columns.offsets[i] == i * 100
        assert columns.solved(i) == (trial_status(line) == "solved")
        assert columns.counted(i) == (not line.is_infra)
    keep = list(range(len(lines)))[::2]
    kept = columns.kept(keep)
    assert [kept.entry(j) | {"line": 0} for j in range(len(keep))] == [
        columns.entry(i) | {"line": 0} for i in keep]


def test_statuses_cover_every_outcome() -> None:
    assert set(STATUSES) == {"solved", "failed", "undetermined", "infra", "error"}
