"""Early stop configured in trialrun.toml (`[run] early_stop`) is not applied to a
benchmark pair: its pass^k and solve^k are exact per-record means over all k trial lines
(`hat_k`), and a record stopped after its first wrong answer would be left out of them
(a 'short' record), leaving only the all-right records in the figure. Every trial runs
and the pair's warnings say why."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_benchmarks_eval_runner import SeedBackend, SeedScorer, Words

from trialrun.benchmarks import run_benchmark, single_pair
from trialrun.rundir import RunDir


def _loaded() -> Words:
    words = Words()
    words.load()
    return words


def test_every_trial_of_every_record_runs_with_early_stop_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "trialrun.toml").write_text("[run]\nearly_stop = true\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    pair = single_pair("words", "early-stop-model", engine="ollama", output_dir=tmp_path / "out",
                       custom=True)  # fmt: skip
    pair.trials = 3
    backend = SeedBackend({"hello": "hello", "world": "planet", "moon": "moon"})
    outcome = run_benchmark(pair, _loaded(), backend, SeedScorer(), handle_sigint=False)
    lines = RunDir.open(outcome.run_dir).results()
    assert Counter(x.task_id for x in lines) == {t: 3 for t in {x.task_id for x in lines}}
    assert len(lines) == 4 * 3
    assert not any("settled_after" in x.extra for x in lines)
    # hello and moon right every time, world wrong, the empty reference undecided: solve^3
    # is the mean over all four records, none left out as short
    assert outcome.summary["hat_k"] == {
        "k": 3, "pass_hat_k": 1.0, "solve_hat_k": 0.5, "records": 4, "records_short": 0,
    }  # fmt: skip
    notes = [w for w in outcome.warnings if w.startswith("early stop")]
    assert notes == [
        "early stop: not for a benchmark pair (its pass^k and solve^k need all k trials of "
        "every record); every trial runs"
    ]


def test_no_note_when_early_stop_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    pair = single_pair("words", "early-stop-off-model", engine="ollama",
                       output_dir=tmp_path / "out", custom=True)  # fmt: skip
    outcome = run_benchmark(pair, _loaded(), SeedBackend({}), SeedScorer(), handle_sigint=False)
    assert not [w for w in outcome.warnings if w.startswith("early stop")]
