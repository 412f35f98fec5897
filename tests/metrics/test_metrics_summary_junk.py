"""summarize() is a library function: wrongly typed lines or metadata never crash it."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import summarize

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


def test_wrongly_typed_tokens_and_meta_k_are_ignored_not_fatal():
    lines = [good(0, tokens=5), good(1, tokens={"prompt": "x"}), good(2)]
    s = summarize(lines, [{"task_id": "a", "k": "x", "tier": 3, "tags": "t"}], models=[M], k=None)
    row = s["tasks"][0]
    assert row["k"] == 1  # the bad k falls back to the default
    assert row["tier"] is None and row["tags"] == []
    assert s["aggregate"][M]["tokens"] == {"prompt": 1, "cached": 0, "completion": 1}
    assert row["solved"] == 3


def test_non_object_lines_and_bad_meta_entries_are_skipped_with_a_warning():
    s = summarize([good(0), 7, "x"], ["junk", {"task_id": "a", "k": 1}], models=[M, 3], k="2")
    assert s["models"] == [M]
    assert s["k"] is None
    assert s["finished_trials"] == 1
    assert any("not JSON objects" in w for w in s["warnings"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.fixed_dictionaries({}, optional={key: junk for key in KEYS}), max_size=4),
    st.dictionaries(st.sampled_from(["k", "tier", "suite", "tags", "policy", "metric"]), junk),
    junk,
)
def test_summarize_never_raises_on_junk(overrides, meta, k):
    lines = [{"task_id": "a", "model": M, **o} for o in overrides]
    s = summarize(lines, [{"task_id": "a", **meta}], models=[M], k=k)
    json.dumps(s)  # summary.json stays serialisable
    row = s["tasks"][0]
    assert isinstance(row["k"], int) and row["k"] >= 1
    assert 0 <= row["solved"] <= row["n"] + row["infra_errors"]
