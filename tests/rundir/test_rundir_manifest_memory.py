"""run.json of many tasks is read with its text values interned as each object is made
(`read_interned`): the same value as json reads, each entry's "golden" let go at once,
so reading it peaks lower (a reader's peak of a 10,000-task run starts here)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.rundir import Manifest, RunDir
from trialrun.rundir._json_entries import read_interned

TASKS = 4000
# today ~690 (the text, and each entry as it is kept); each entry's text values its own
# until the whole file is read: ~1,120
BYTES_PER_TASK = 900

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=20,
)


def _run(tmp: Path) -> RunDir:
    tasks: list[dict[str, Any]] = [
        {"task_id": f"task-{i:05d}", "suite": ("golden", "adversarial")[i % 2],
         "tier": f"T{1 + i % 4}", "tags": [f"tag{i % 7}"], "policy": "ALWAYS_PASSES",
         "k": 10, "metric": "pass^k"} for i in range(TASKS)]
    manifest = Manifest(run_id="m", started_at="2026-01-01T00:00:00+00:00",
                        models=["p:m-2026-01-01"], tasks=tasks)
    return RunDir.create(tmp, "m", manifest, fsync=False)


def test_reading_run_json_peaks_below_a_kilobyte_a_task(tmp_path: Path) -> None:
    run = _run(tmp_path)
    tracemalloc.start()
    try:
        manifest = run.manifest()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(manifest.tasks) == TASKS and manifest.tasks[1]["suite"] == "adversarial"
    assert manifest.tasks[0]["suite"] is manifest.tasks[2]["suite"]
    assert peak / TASKS < BYTES_PER_TASK, peak / TASKS


def test_the_manifest_reads_as_the_whole_file(tmp_path: Path) -> None:
    run = _run(tmp_path)
    whole = json.loads(run.manifest_path.read_text(encoding="utf-8"))
    assert run.manifest().to_json() == Manifest.from_json(whole).to_json()


@settings(max_examples=200, deadline=None)
@given(_VALUES, st.sampled_from([None, 1]))
def test_any_json_reads_as_json_reads_it(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert read_interned(text) == json.loads(text)
    assert read_interned(f" \n{text}\t") == json.loads(text)


def test_what_json_refuses_is_left_to_the_whole_file_path() -> None:
    for text in ('{"a": NaN}', '{"a": 1e999}', '{"a": 1} x', '\ufeff{"a": 1}', '{"a": 1,}',
                 '[' * 5000 + ']' * 5000):
        assert read_interned(text) is None
    assert read_interned('{"a": 1, "a": 2}') == {"a": 2}  # json keeps the last
