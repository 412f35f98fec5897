"""`SummaryRow` is small (every reader holds a 10,000-task summary whole): eight slots,
its other attributes read from tuples that equal rows share, and it acts as the dataclass
it was (keywords, defaults, setting an attribute, equality, the file form)."""

from __future__ import annotations

import tracemalloc

from hypothesis import given
from hypothesis import strategies as st

from trialrun.rundir import SummaryRow

M = "openai-compat:m-2026-01-01"
ROWS = 2000
# today 96 (the row; its packed tuples shared); a dataclass of 28 slots
# was 256 (and its tuple of tags, shared, on top)
BYTES_PER_ROW = 140


def _row(i: int, task_id: str | None = None) -> SummaryRow:
    return SummaryRow(
        task_id=task_id or f"task-{i:05d}", model=M, provider="openai-compat",
        suite="golden", tier="T1",
        k=10, n=10, pass_n=10, passed=10, solved=9 + i % 2, pass_k=1.0,
        solve_k=(0.0, 1.0)[i % 2], pass_at_k=1.0, flaky=i % 2 == 0, metric="pass^k",
        policy="ALWAYS_PASSES", tags=("t",), mean_turns=2.0,
    )


def test_a_row_holds_about_a_hundred_bytes() -> None:
    ids = [f"task-{i:05d}" for i in range(ROWS)]  # the ids' text is not the row's
    rows: list[SummaryRow] = [_row(0), _row(1)]  # the shared tuples made before counting
    rows *= ROWS // 2  # the list's slots too
    warm = [_row(i) for i in range(3 * ROWS)]  # CPython's free tuples, made untraced
    del warm
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i, task_id in enumerate(ids):
            rows[i] = _row(i, task_id)
        per_row = (tracemalloc.get_traced_memory()[0] - before) / ROWS
    finally:
        tracemalloc.stop()
    assert rows[-1].task_id == ids[-1] and per_row <= BYTES_PER_ROW, per_row


def test_equal_rows_share_their_packed_figures() -> None:
    one, two = _row(2), _row(4)
    assert one.k == 10 and one.solved == 9 and one.flaky and one.tags == ("t",)
    assert one._figures is two._figures and one._meta is two._meta
    assert one._rare is SummaryRow("x", M)._rare


def test_a_zero_of_either_sign_and_an_int_for_a_float_stay_as_given() -> None:
    """Equal figures that are written differently are never shared (0.0 and -0.0, 1 and
    1.0 and True)."""
    plus, minus = SummaryRow("a", M, pass_k=0.0), SummaryRow("b", M, pass_k=-0.0)
    assert str(plus.to_json()["pass_k"]) == "0.0" and str(minus.to_json()["pass_k"]) == "-0.0"
    assert SummaryRow("c", M, n=1).n.__class__ is int
    assert SummaryRow("d", M, flaky=True).to_json()["flaky"] is True
    assert SummaryRow("e", M, pass_at_k=1).to_json()["pass_at_k"].__class__ is int


def test_setting_an_attribute_changes_that_row_alone() -> None:
    one, two = _row(2), _row(4)
    one.settled_after, one.settled = 3, "met"
    one.passed = 7
    assert (one.settled_after, one.settled, one.passed) == (3, "met", 7)
    assert (two.settled_after, two.passed) == (None, 10)
    data = one.to_json()
    assert data["settled_after"] == 3 and data["passed"] == 7
    assert "settled_after" not in two.to_json()


def test_equality_and_repr_read_every_field() -> None:
    assert _row(2) == _row(2) and _row(2) != _row(3)
    assert _row(2) != _row(4)  # the task ids differ
    changed = _row(2)
    changed.tracked = {"pass_rate": 1.0}
    assert changed != _row(2)
    assert repr(_row(2)).startswith("SummaryRow(task_id='task-00002', model=")
    assert "tracked=None, extra=mappingproxy({}))" in repr(_row(2))


@given(st.integers(0, 50), st.integers(0, 50), st.one_of(st.none(), st.floats(0, 1)),
       st.booleans(), st.lists(st.sampled_from("abc"), max_size=3))
def test_any_row_round_trips_through_its_file_form(
    n: int, solved: int, solve_k: float | None, flaky: bool, tags: list[str]
) -> None:
    row = SummaryRow("t", M, k=3, n=n, pass_n=n, passed=n, solved=solved, solve_k=solve_k,
                     flaky=flaky, tags=tuple(tags), mean_turns=1.5)
    assert SummaryRow.from_json(row.to_json()) == row
