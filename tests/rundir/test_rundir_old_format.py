"""A run folder and baselines written by trialrun 0.1.0 (before `trialrun.rundir`) still read.

The fixture under data/v0.1.0 was written by the 0.1.0 CLI: two scripted models over the
example suite, k=3, one judge task undetermined (no judge), and `bless --force`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from trialrun.metrics import summarize_run
from trialrun.rundir import Baseline, Manifest, ResultLine, RunDir, Summary, Transcript
from trialrun.tracking import compare, load_baseline, load_run

DATA = Path(__file__).parent / "data" / "v0.1.0"
RUN = next(p for p in DATA.iterdir() if p.name.startswith("2026"))
GOOD = "scripted:examples/scripts/good.yaml"


def test_every_file_reads_and_writes_back_the_same_json() -> None:
    run = RunDir.open(RUN)
    manifest = run.manifest()
    assert manifest.models == [GOOD, "scripted:examples/scripts/bad.yaml"] and manifest.k == 3
    assert Manifest.from_json(manifest.to_json()) == manifest
    assert manifest.to_json() == json.loads(run.manifest_path.read_text())

    raw = [json.loads(x) for x in run.results_path.read_text().splitlines()]
    lines = run.results()
    assert len(lines) == 48 and [line.to_json() for line in lines] == raw

    stored = run.stored_summary()
    assert stored is not None
    assert stored.to_json() == json.loads(run.summary_path.read_text())

    for line in lines:
        transcript = run.transcript(line)
        assert isinstance(transcript, Transcript) and transcript.task_id == line.task_id
        assert transcript.to_json() == json.loads((RUN / line.transcript).read_text())


def test_the_summary_recomputed_today_equals_the_stored_one() -> None:
    run = RunDir.open(RUN)
    stored = run.stored_summary()
    again = summarize_run(run.results(), run.manifest())
    assert isinstance(again, Summary) and stored is not None
    # rows now carry `pass_n` (pass counts every finished trial, infra errors too); this
    # run has no infra error, so every figure is 0.1.0's
    assert all(r.pass_n == r.n + r.infra_errors for r in again.tasks)
    assert all(r.pass_n is None for r in stored.tasks)  # 0.1.0 rows had no pass_n
    for r in again.tasks:
        r.pass_n = None
    assert again.tasks == stored.tasks
    assert again.aggregate == stored.aggregate
    assert (again.expected_trials, again.finished_trials) == (48, 48)


def test_baselines_read_and_compare_with_the_run(tmp_path: Path) -> None:
    for path in sorted((DATA / "baselines").iterdir()):
        baseline = load_baseline(path)
        assert isinstance(baseline, Baseline) and baseline.provider == "scripted"
        assert baseline.to_json() == json.loads(path.read_text())
    good = load_baseline(DATA / "baselines" / "scripted-examples-scripts-good.yaml.json")
    assert good.forced and good.reason == "fixture for format compatibility"
    copy = tmp_path / RUN.name
    shutil.copytree(RUN, copy)
    comparison = compare(load_run(copy), good, model=GOOD)
    assert not comparison.regressions and len(comparison.tasks) == 8


@pytest.mark.parametrize("line_number", [0, 17, 47])
def test_old_lines_keep_their_extra_keys(line_number: int) -> None:
    lines = RunDir.open(RUN).results()
    line = lines[line_number]
    assert isinstance(line, ResultLine)
    assert {"suite", "tier", "final_text", "user_message"} <= set(line.extra)
