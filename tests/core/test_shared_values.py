"""`trialrun.core.SharedValues` / `Interner`: one object for every equal value, capped."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from trialrun.core import MAX_SHARED, Interner, SharedValues


def test_equal_values_are_one_object() -> None:
    intern: Interner[tuple[str, ...]] = Interner()
    first = intern(("a", "b"))
    again = intern(tuple(["a", "b"]))  # equal, not the same object
    assert again is first
    assert intern(("c",)) == ("c",) and len(intern) == 2


def test_past_the_cap_a_new_value_is_its_own_and_the_held_ones_stay_shared() -> None:
    intern: Interner[tuple[int, ...]] = Interner(limit=2)
    one, two = intern((1,)), intern((2,))
    three = (3,)
    assert intern(three) is three  # no room: handed back, not held
    assert intern(tuple([3])) is not three
    assert len(intern) == 2
    assert intern(tuple([1])) is one and intern(tuple([2])) is two


def test_an_unhashable_key_is_never_held() -> None:
    intern: Interner[tuple[object, ...]] = Interner()
    value: tuple[object, ...] = ([1],)
    assert intern(value) is value
    assert len(intern) == 0
    shared: SharedValues[tuple[object, ...], str] = SharedValues()
    assert shared.held(value) is None


def test_make_builds_a_value_once_per_key() -> None:
    made: list[tuple[tuple[str, int], ...]] = []

    def read_only(pairs: tuple[tuple[str, int], ...]) -> MappingProxyType[str, int]:
        made.append(pairs)
        return MappingProxyType(dict(pairs))

    table: SharedValues[tuple[tuple[str, int], ...], MappingProxyType[str, int]] = SharedValues()
    first = table.make((("x", 1),), read_only)
    assert table.make((("x", 1),), read_only) is first
    assert made == [(("x", 1),)]
    assert table.held((("x", 1),)) is first and table.held((("y", 1),)) is None


def test_share_keeps_the_first_value_for_a_key() -> None:
    table: SharedValues[tuple[int, int], list[int]] = SharedValues()
    kept = [1]
    assert table.share((1, 2), kept) is kept
    assert table.share((1, 2), [1]) is kept


def test_the_default_cap() -> None:
    assert Interner().limit == SharedValues().limit == MAX_SHARED == 4096


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20))), st.integers(0, 30))
def test_any_values_any_cap(values: list[tuple[int, int]], limit: int) -> None:
    """Every answer equals its input; equal inputs held give one object; at most `limit`
    distinct values are held, the first ones seen."""
    intern: Interner[tuple[int, int]] = Interner(limit=limit)
    answers = [intern(v) for v in values]
    assert answers == values
    distinct = list(dict.fromkeys(values))
    assert len(intern) == min(limit, len(distinct))
    for value in distinct[:limit]:
        assert len({id(a) for a in answers if a == value}) == 1
