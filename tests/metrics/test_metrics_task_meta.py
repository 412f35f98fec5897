"""run.json's task entries are read into one slotted `TaskMeta` each when a `Summarizer`
is made: the rows read from it are the ones the entry itself gave, and the entries are
not held."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.metrics import summarize
from trialrun.metrics._summary import Summarizer
from trialrun.metrics._task_meta import TaskMeta, metas_by_id
from trialrun.rundir import ResultLine

MODEL = "openai-compat:m-2026-01-01"
ANY = st.one_of(st.none(), st.booleans(), st.integers(-2, 4), st.text(max_size=3),
                st.lists(st.one_of(st.text(max_size=2), st.integers(0, 2)), max_size=3))
KEYS = ("k", "suite", "tier", "metric", "policy", "tags", "tracked_metrics")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _pos(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), ANY))
def test_an_entry_reads_as_the_dict_read(entry: dict[str, Any]) -> None:
    """What a row takes from an entry, as it took it from the dict itself."""
    meta = TaskMeta.of({"task_id": "t", **entry})
    assert meta.listed
    assert meta.k == _pos(entry.get("k"))
    for key in ("suite", "tier", "metric", "policy"):
        assert getattr(meta, key) == _str(entry.get(key)), key
    tags = entry.get("tags")
    if "tags" in entry:
        assert meta.tags == (tuple(str(t) for t in tags) if isinstance(tags, list) else ())
    else:
        assert meta.tags is None
    tracked = entry.get("tracked_metrics")
    assert meta.tracked == (tuple(tracked) if isinstance(tracked, list) else None)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(KEYS), ANY), min_size=1, max_size=4))
def test_rows_from_entries_match_a_summary_of_the_same_lines(
    entries: list[dict[str, Any]]
) -> None:
    metas = [{"task_id": f"t{i}", **e} for i, e in enumerate(entries)]
    lines = [ResultLine(task_id=f"t{i}", model=MODEL, trial=0, passed=True, solve=True,
                        latency_s=1.0, extra={"suite": "golden", "tags": ["line"], "k": 2})
             for i in range(len(entries))]
    rows = summarize(lines, metas, run_id="r", models=[MODEL], k=3).tasks
    for row, entry in zip(rows, entries, strict=True):
        k = _pos(entry.get("k")) or 2  # else the first line's
        assert row.k == k
        assert row.suite == (_str(entry.get("suite")) or "golden")
        assert row.tier == _str(entry.get("tier"))  # listed: never the line's
        tags = entry.get("tags")
        expected = (tuple(str(t) for t in tags) if isinstance(tags, list) else ()
                    ) if "tags" in entry else ("line",)
        assert row.tags == expected and isinstance(row.tags, tuple)
        assert (row.tracked is None) == (not isinstance(entry.get("tracked_metrics"), list))


def test_the_summarizer_keeps_a_slotted_record_per_task_not_the_entries() -> None:
    entries: list[dict[str, Any]] = [
        {"task_id": f"t{i}", "suite": "golden", "tier": "T1", "tags": ["smoke", "fast"],
         "k": 3, "metric": "pass^k", "policy": "ALWAYS_PASSES", "source": "x.yaml"}
        for i in range(5)
    ]
    summarizer = Summarizer(entries, "r", [MODEL], None)
    held = [getattr(summarizer, name) for name in Summarizer.__slots__]
    assert not any(value is entries for value in held)  # the entries are not held
    metas = list(summarizer.metas.values())
    assert all(type(m) is TaskMeta and not hasattr(m, "__dict__") for m in metas)
    assert len({id(m.tags) for m in metas}) == 1  # equal tag lists: one tuple
    assert len({id(m.suite) for m in metas}) == 1


def test_a_later_entry_of_the_same_id_wins_in_the_first_ones_place() -> None:
    metas = metas_by_id([{"task_id": "a", "k": 1}, {"task_id": "b"}, {"task_id": "a", "k": 2},
                         {"task_id": ""}, "junk", {"k": 3}])
    assert list(metas) == ["a", "b"] and metas["a"].k == 2
    assert metas_by_id(None) == {} and metas_by_id(({"task_id": "a"},)) == {}
