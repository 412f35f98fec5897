"""k trials per benchmark record: `trials` in `[[benchmarks]]` or `[run]`, `-k` on the
command line (benchmark > run > 1, -k over all), and pass^k / solve^k per benchmark:
per record C(c,k)/C(n,k) exactly, then the mean; pass counts completed trials, solve
correct ones."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from trialrun.benchmarks import Overrides, expand, load_suite, summarize_records
from trialrun.benchmarks._records import hat_k

SUITE = """
[meta]
name = "s"
[run]
trials = 2
[[models]]
name = "m.yaml"
provider = "scripted"
[[benchmarks]]
name = "supergpqa"
trials = 5
[[benchmarks]]
name = "frames"
"""


def test_trials_key_and_k_flag_set_each_pairs_k(tmp_path: Path) -> None:
    path = tmp_path / "suite.toml"
    path.write_text(SUITE, encoding="utf-8")
    suite = load_suite(path)
    assert [p.trials for p in expand(suite)] == [5, 2]  # benchmark's own, else [run]'s
    assert [p.trials for p in expand(suite, Overrides(trials=3))] == [3, 3]  # -k wins
    path.write_text(SUITE.replace("[run]\ntrials = 2\n", ""), encoding="utf-8")
    assert [p.trials for p in expand(load_suite(path))] == [5, 1]


def _row(task: str, *, error: bool, correct: bool | None) -> dict[str, object]:
    return {
        "record_id": task, "task_id": task, "benchmark": "b", "model": "m",
        "is_correct": None if error else correct, "error": "infra: down" if error else None,
    }


def _brute(outcomes: list[bool], k: int) -> Fraction:
    """The share of k-subsets of the trials that all succeed, by enumeration."""
    subsets = list(itertools.combinations(outcomes, k))
    return Fraction(sum(all(s) for s in subsets), len(subsets))


trial = st.tuples(st.booleans(), st.booleans())  # (errored, correct)


@given(st.lists(st.lists(trial, min_size=1, max_size=6), min_size=1, max_size=5),
       st.integers(1, 6))
def test_hat_k_is_the_exact_mean_over_records(records: list[list[tuple[bool, bool]]], k: int):
    rows = [
        _row(f"r{i}", error=errored, correct=correct)
        for i, trials in enumerate(records)
        for errored, correct in trials
    ]
    counted = [t for t in records if len(t) >= k]
    result = hat_k(rows, k)
    assert result["records"] == len(counted)
    assert result["records_short"] == len(records) - len(counted)
    if not counted:
        assert result["pass_hat_k"] is None and result["solve_hat_k"] is None
        return
    passes = sum((_brute([not e for e, _ in t], k) for t in counted), Fraction(0))
    solves = sum((_brute([not e and c for e, c in t], k) for t in counted), Fraction(0))
    assert result["pass_hat_k"] == float(passes / len(counted))
    assert result["solve_hat_k"] == float(solves / len(counted))


def test_summary_says_k_and_reads_k_from_the_lines_alone() -> None:
    rows = [
        _row("a", error=False, correct=True),
        _row("a", error=False, correct=True),
        _row("a", error=False, correct=False),
        _row("b", error=True, correct=None),
        _row("b", error=False, correct=True),
        _row("b", error=False, correct=True),
    ]
    summary = summarize_records(rows)  # a per-record file read alone: k = 3 lines each
    assert summary["trials"] == 3
    # a: pass 3/3 → 1, solve C(2,3)=0; b: pass C(2,3)/C(3,3) = 0, solve 0
    assert summary["hat_k"]["pass_hat_k"] == 0.5
    assert summary["hat_k"]["solve_hat_k"] == 0.0
    two = summarize_records(rows, trials=2)["hat_k"]
    # a: pass 1, solve C(2,2)/C(3,2) = 1/3; b: pass C(2,2)/C(3,2) = 1/3, solve 1/3
    assert two["pass_hat_k"] == float((1 + Fraction(1, 3)) / 2)
    assert two["solve_hat_k"] == float(Fraction(1, 3))
