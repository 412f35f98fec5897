"""Wrongly typed results lines are refused by their one reader (`ResultLine.from_json`, a
one-line RecordError); summarize() over what it accepts, with junk metadata, never crashes."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import summarize
from trialrun.rundir import RecordError, ResultLine

M = "scripted:x.yaml"

junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 5)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
KEYS = [
    "trial",
    "pass",
    "solve",
    "error",
    "verdicts",
    "tool_calls",
    "turns",
    "tokens",
    "cost_usd",
    "latency_s",
    "provider",
    "tier",
    "suite",
    "tags",
    "k",
    "safety_violation",
]


def good(trial=0, **over):
    base = {
        "task_id": "a",
        "model": M,
        "provider": "scripted",
        "trial": trial,
        "pass": True,
        "solve": True,
        "error": None,
        "verdicts": [],
        "tool_calls": [],
        "turns": 1,
        "tokens": {"prompt": 1, "cached": 0, "completion": 1},
        "cost_usd": 0.0,
        "latency_s": 0.1,
        "safety_violation": False,
    }
    return {**base, **over}


def read(item):
    return ResultLine.from_json(item)


def test_wrongly_typed_tokens_are_refused_and_meta_k_ignored_not_fatal():
    for bad, needle in ((good(0, tokens=5), "tokens must be an object"),
                        (good(1, tokens={"prompt": "x"}), "tokens.prompt must be a number"),
                        (7, "must be a JSON object")):  # fmt: skip
        with pytest.raises(RecordError, match=needle):
            read(bad)
    lines = [read(good(0)), read(good(1)), read(good(2))]
    s = summarize(lines, [{"task_id": "a", "k": "x", "tier": 3, "tags": "t"}], models=[M], k=None)
    row = s.tasks[0]
    assert row.k == 1  # the bad k falls back to the default
    assert row.tier is None and row.tags == ()
    assert s.aggregate[M]["tokens"] == {"prompt": 3, "cached": 0, "completion": 3}
    assert row.solved == 3


def test_bad_meta_entries_and_models_are_skipped():
    s = summarize([read(good(0))], ["junk", {"task_id": "a", "k": 1}], models=[M, 3], k="2")
    assert s.models == [M]
    assert s.k is None
    assert s.finished_trials == 1


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.fixed_dictionaries({}, optional={key: junk for key in KEYS}), max_size=4),
    st.dictionaries(st.sampled_from(["k", "tier", "suite", "tags", "policy", "metric"]), junk),
    junk,
)
def test_summarize_never_raises_on_junk(overrides, meta, k):
    lines = []
    for trial, o in enumerate(overrides):
        try:
            lines.append(read({"task_id": "a", "model": M, "trial": trial, **o}))
        except RecordError:
            continue  # refused with a reason: never another exception
    s = summarize(lines, [{"task_id": "a", **meta}], models=[M], k=k)
    json.dumps(s.to_json())  # summary.json stays serialisable
    row = s.tasks[0]
    assert isinstance(row.k, int) and row.k >= 1
    assert 0 <= row.solved <= row.n + row.infra_errors
