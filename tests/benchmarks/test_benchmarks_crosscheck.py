"""The seed's four benchmarks cross-checked against OpenJarvis's own providers and
scorers on the same records (small datasets in the real column layouts): the records
agree (ids, references), and so do the verdicts, the judge being the same scripted
model. Where the two differ by design the README says which is right (FRAMES and GAIA
on a judge reply neither format allows: OpenJarvis counts it wrong, trialrun
undetermined)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from benchmarks_support import FRAMES_ROWS, SUPERGPQA_ROWS, wildchat_rows, write_csv, write_jsonl

pytest.importorskip("openjarvis.evals", reason="openjarvis is not installed (trialrun[openjarvis])")

from trialrun.benchmarks import (  # noqa: E402  (after the skip: openjarvis is optional)
    BENCHMARKS,
    BenchmarkDataset,
    OpenJarvisBenchmark,
    OpenJarvisDataset,
    Record,
    ScoreResult,
)
from trialrun.benchmarks.openjarvis import catalogue  # noqa: E402
from trialrun.models import create_model  # noqa: E402


def native(name: str) -> Any:
    factory = BENCHMARKS.get(name)
    assert factory is not None
    return factory()


def theirs(name: str) -> OpenJarvisBenchmark:
    return OpenJarvisBenchmark(catalogue()[name])


def both_verdicts(
    name: str, record: Record, answer: str, judge: Any, oj_record: Record | None = None
) -> tuple[Any, Any]:
    """(trialrun's verdict, OpenJarvis's) on the same answer; `oj_record`: the record as
    OpenJarvis's provider made it, when it differs from trialrun's."""

    async def go() -> tuple[ScoreResult, ScoreResult]:
        ours = await native(name).score(record, answer, judge)
        oj = await theirs(name).score(oj_record or record, answer, judge)
        return ours, oj

    ours, oj = asyncio.run(go())
    return ours.is_correct, oj.is_correct


def test_supergpqa_records_and_verdicts_agree(tmp_path: Path, script) -> None:
    data = write_jsonl(tmp_path / "sg.jsonl", SUPERGPQA_ROWS)
    ours = BenchmarkDataset(native("supergpqa"), str(data))
    ours.load(seed=0)
    oj = OpenJarvisDataset(theirs("supergpqa"), str(data))
    oj.load(seed=0)
    mine = {r.record_id: r for r in ours.iter_records()}
    # OpenJarvis numbers its records (supergpqa-0, …) and keeps the uuid in metadata;
    # trialrun keeps the uuid as the id (stable whatever the order: resume and baselines)
    other = {r.metadata["uuid"]: r for r in oj.iter_records()}
    assert set(mine) == set(other)
    assert {k: r.reference for k, r in mine.items()} == {k: r.reference for k, r in other.items()}
    # answers: the right letter on even records, the next one on odd; the judge (which
    # OpenJarvis always asks, trialrun only when its rules find no letter) reads it
    answers = {
        uuid: "ABCD"[("ABCD".index(r.reference) + int(uuid[-1]) % 2) % 4]
        for uuid, r in other.items()
    }
    replies = {f"supergpqa-{k}": v for k, v in answers.items()}
    judge = create_model(f"scripted:{script(replies, 'judge.yaml')}")
    for uuid, record in other.items():
        record.task_id = mine[uuid].task_id = f"supergpqa-{uuid}"
        ours_v, oj_v = both_verdicts("supergpqa", mine[uuid], answers[uuid], judge, record)
        assert ours_v == oj_v == (int(uuid[-1]) % 2 == 0), uuid


def test_frames_records_agree_and_verdicts_without_a_judge_call(tmp_path: Path) -> None:
    data = write_csv(tmp_path / "frames.csv", FRAMES_ROWS)
    ours = BenchmarkDataset(native("frames"), str(data))
    ours.load(seed=0)
    oj = OpenJarvisDataset(theirs("frames"), str(data))
    oj.load(seed=0)
    mine = sorted((r.problem, str(r.reference)) for r in ours.iter_records())
    other = sorted((r.problem, str(r.reference)) for r in oj.iter_records())
    assert [ref for _, ref in mine] == [ref for _, ref in other]
    record = next(iter(oj.iter_records()))
    assert both_verdicts("frames", record, "", None) == (False, False)  # empty: wrong
    assert both_verdicts("frames", record, "answer 0", None) == (None, None)  # no judge


@pytest.mark.parametrize(
    ("reference", "answer", "verdict"),
    [
        ("42", "42", True),
        ("42", "$42", True),
        ("Paris", "paris.", True),
        ("3, 4, 5", "3,4,5", True),
        ("Paris", "", False),
        ("Paris", "London", False),  # no match, no judge to ask
        ("Paris", "FINAL ANSWER: Paris", "differs"),
    ],
)
def test_gaia_verdicts_agree(reference: str, answer: str, verdict: bool | str) -> None:
    record = Record("g-1", "A question?", reference, task_id="gaia-g-1")
    ours, oj = both_verdicts("gaia", record, answer, None)
    if verdict == "differs":
        # the reply's `FINAL ANSWER:` line is what trialrun compares; OpenJarvis compares
        # the whole reply, and without a judge calls it wrong (the README says which)
        assert (ours, oj) == (True, False)
    else:
        assert ours == oj == verdict


@pytest.mark.parametrize("verdict", ["[[A>>B]]", "[[A=B]]", "[[B>>A]]", "no verdict here"])
def test_wildchat_verdicts_agree(script, verdict: str) -> None:
    row = wildchat_rows()[0]
    record = native("wildchat").to_record(row, 0, None)
    assert record is not None
    record.task_id = "wildchat-wc-en-1"
    judge = create_model(f"scripted:{script({record.task_id: verdict}, 'judge.yaml')}")
    ours, oj = both_verdicts("wildchat", record, "Drops on the window", judge)
    # the same token in both orders: a win and a loss, two ties, a loss and a win — each
    # correct in both scorers; no token: undetermined in both
    assert ours == oj == (None if verdict == "no verdict here" else True)
