"""The end-of-run summary is added up as lines are written; it must be the summary a
reader of the finished run folder computes (`summarize_rundir`), fresh or resumed."""

from __future__ import annotations

from pathlib import Path

import trialrun
from trialrun.metrics import summarize_rundir
from trialrun.rundir import RunDir

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GOOD = f"scripted:{EXAMPLES / 'scripts' / 'good.yaml'}"
BAD = f"scripted:{EXAMPLES / 'scripts' / 'bad.yaml'}"


def _same_as_read_back(run: trialrun.Run) -> None:
    read_back = summarize_rundir(RunDir(run.path), warnings=run.summary.warnings)
    assert run.summary.to_json() == read_back.to_json()
    assert RunDir(run.path).stored_summary().to_json() == read_back.to_json()


def test_fresh_run_summary_equals_the_folder_read_back(tmp_path: Path) -> None:
    run = trialrun.run(str(EXAMPLES / "tasks"), [GOOD, BAD], out=tmp_path, k=2,
                       handle_sigint=False)
    assert run.summary.finished_trials > 0
    _same_as_read_back(run)


def test_resumed_run_summary_counts_the_earlier_lines(tmp_path: Path) -> None:
    first = trialrun.run(str(EXAMPLES / "tasks"), [GOOD, BAD], out=tmp_path, k=2,
                         handle_sigint=False)
    results = RunDir(first.path).results_path
    lines = results.read_bytes().splitlines(keepends=True)
    kept = len(lines) // 3
    results.write_bytes(b"".join(lines[:kept]))  # fault injection: a run cut short
    again = trialrun.run(resume=first.path, handle_sigint=False)
    assert again.trials_run == len(lines) - kept
    assert again.summary.finished_trials == first.summary.finished_trials
    _same_as_read_back(again)
