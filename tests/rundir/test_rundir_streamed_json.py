"""`write_json_streamed_atomic` writes exactly what `write_json_atomic` writes for the whole
object, with one top-level list made and encoded an item at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trialrun.errors import UserError
from trialrun.rundir import write_json_atomic, write_json_streamed_atomic

SECRET = "sk-proj-abcdefghijklmnopqrstuvwx0123456789"
texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from([SECRET, f"key={SECRET}", "line\nbreak", "\u2028", "tâche", "\x00", "\ud800"]),
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)
    ),
    max_leaves=12,
)
heads = st.dictionaries(st.sampled_from(["format", "model", "aggregate", "z"]), values,
                        max_size=3)


def _both(tmp: Path, head: dict[str, Any], items: list[Any]) -> tuple[bytes, bytes]:
    whole, streamed = tmp / "whole.json", tmp / "streamed.json"
    data = {**head, "tasks": items, "after": head.get("aggregate")}
    write_json_atomic(whole, data)
    write_json_streamed_atomic(streamed, {**data, "tasks": None}, "tasks", lambda: iter(items))
    return whole.read_bytes(), streamed.read_bytes()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=heads, items=st.lists(values, max_size=5))
def test_streamed_bytes_equal_the_whole_documents(
    tmp_path: Path, head: dict[str, Any], items: list[Any]
) -> None:
    whole, streamed = _both(tmp_path, head, items)
    assert streamed == whole


def test_a_secret_in_an_item_is_redacted_as_in_the_whole(tmp_path: Path) -> None:
    items = [{"task_id": "a", "note": f"token {SECRET}"}, {"task_id": "b", "n": 1}]
    whole, streamed = _both(tmp_path, {"model": "m"}, items)
    assert streamed == whole
    assert SECRET.encode() not in streamed


def test_a_nan_in_an_item_names_its_place_and_writes_nothing(tmp_path: Path) -> None:
    items = [{"task_id": "a", "metrics": {"cost_usd": 0.1}},
             {"task_id": "b", "metrics": {"cost_usd": float("nan")}}]
    target = tmp_path / "b.json"
    with pytest.raises(UserError) as caught:
        write_json_streamed_atomic(target, {"model": "m", "tasks": None}, "tasks",
                                   lambda: iter(items))
    with pytest.raises(UserError) as whole:
        write_json_atomic(target, {"model": "m", "tasks": items})
    assert str(caught.value) == str(whole.value)
    assert "tasks[1].metrics.cost_usd is NaN" in str(caught.value)
    assert list(tmp_path.iterdir()) == []
