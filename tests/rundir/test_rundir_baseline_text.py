"""A large baseline file is read a task entry at a time (`baseline_by_tasks`), each entry
packed as it is read: the same values as the file read whole, its latencies an
`array("d")` of the same doubles and its keys one string for every entry; text out of
the plain shape is left to the whole-file path."""

from __future__ import annotations

import copy
import json
from array import array
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.rundir import baseline_by_tasks, packed_entry
from trialrun.rundir._json import loads_checked

_FLOAT = st.floats(0, 100, allow_nan=False)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    tasks = [
        {"task_id": f"t{i}", "suite": draw(st.sampled_from(["golden", None, 3])),
         "tier": draw(st.sampled_from(["T1", "T2"])), "n": draw(st.integers(0, 3)),
         "pass_k": draw(st.one_of(st.none(), _FLOAT)),
         "metrics": {"turns": draw(st.one_of(st.none(), _FLOAT)),
                     "latencies_s": draw(st.one_of(
                         st.lists(_FLOAT, max_size=5),
                         st.lists(st.one_of(_FLOAT, st.integers(0, 3)), max_size=5)))},
         "odd": draw(st.sampled_from([None, [1, {"z": 2}], "é\\u"]))}
        for i in range(draw(st.integers(0, 40)))
    ]
    return {"format": "trialrun-baseline/1", "model": "m", "provider": "p", "tasks": tasks,
            "aggregate": {"tasks": len(tasks)}, "k": draw(st.sampled_from([None, 3]))}


def _plain(value: Any) -> Any:
    """Packed latencies as the list the whole-file reader gives, packed entries as the
    dicts."""
    if isinstance(value, array):
        return list(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@settings(max_examples=80, deadline=None)
@given(documents(), st.sampled_from([None, 0, 2]), st.booleans())
def test_entries_one_at_a_time_read_as_the_whole_file(
    doc: dict[str, Any], indent: int | None, ascii_only: bool
) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=ascii_only)
    by_tasks = baseline_by_tasks(text)
    assert by_tasks is not None
    whole = loads_checked(text)
    assert _plain(by_tasks) == whole
    for read, entry in zip(by_tasks["tasks"], whole["tasks"], strict=True):
        latencies = read["metrics"]["latencies_s"]
        floats_only = all(isinstance(x, float) for x in entry["metrics"]["latencies_s"])
        assert isinstance(latencies, array) == floats_only  # ints: left as read
        assert list(map(type, latencies)) == list(map(type, entry["metrics"]["latencies_s"]))
    firsts = [next(iter(read)) for read in by_tasks["tasks"]]
    assert all(key is firsts[0] for key in firsts)  # one "task_id" for every entry
    packed = [packed_entry(copy.deepcopy(entry)) for entry in whole["tasks"]]
    assert _plain(packed) == whole["tasks"]  # as the whole file's entries are packed


@pytest.mark.parametrize("text", [
    '{"tasks": [], "tasks": []}',  # a repeated key (json keeps the last)
    '{"tasks": [{"task_id": "a", "pass_k": NaN}]}',
    '{"tasks": [{"task_id": "a", "pass_k": 1e999}]}',
    '{"tasks": [{"task_id": "a"},]}',
    '{"tasks": [],}',
    '{"tasks": []} x',
    '[1, 2]',
    '\ufeff{"tasks": []}',
    '{"tasks": [{"task_id": "a"}] ',
])
def test_text_out_of_the_plain_shape_is_left_to_the_whole_file_path(text: str) -> None:
    assert baseline_by_tasks(text) is None
