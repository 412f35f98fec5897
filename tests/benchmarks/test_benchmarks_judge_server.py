"""Against a real OpenAI-compatible server on 127.0.0.1: WildChat's pairwise judging in
both orders (win, loss), FRAMES' YES/NO, and generation settings reaching the provider
with benchmark > model > defaults precedence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from benchmarks_support import FRAMES_ROWS, wildchat_rows, write_csv, write_jsonl
from judge_server import JudgeServer

from trialrun.benchmarks import BENCHMARKS, Record, expand, load_suite, run_pairs
from trialrun.models import create_model


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running


def judge(server: JudgeServer):
    return create_model(f"openai-compat:judge-1@{server.base_url}")


@pytest.mark.parametrize(
    ("answer", "original", "outcomes", "correct"),
    [
        ("GOOD haiku", "meh", ["win", "win"], True),
        ("meh", "GOOD haiku", ["loss", "loss"], False),
        ("GOOD one", "GOOD two", ["tie", "tie"], True),
    ],
)
def test_wildchat_pairwise_in_both_orders(server, answer, original, outcomes, correct) -> None:
    bench = BENCHMARKS.get("wildchat")()
    record = Record("w", "Write a haiku", original, task_id="wildchat-w")
    result = asyncio.run(bench.score(record, answer, judge(server)))
    assert result.metadata["outcomes"] == outcomes
    assert result.is_correct is correct
    assert result.metadata["model_first"]["verdict"] in ("[[A>B]]", "[[B>A]]", "[[A=B]]")
    # both orders were asked: the model's reply once as A, once as B
    firsts = [r["messages"][-1]["content"] for r in server.requests]
    assert len(firsts) == 2 and firsts[0] != firsts[1]


def test_wildchat_a_tie_then_a_loss_is_correct_as_in_the_seed(server) -> None:
    # a judge biased toward the first position: the weaker reply ties when shown first and
    # loses when shown second; the seed counts a win or a tie in either comparison
    bench = BENCHMARKS.get("wildchat")()
    record = Record("w", "FIRST-BIASED: write a haiku", "GOOD haiku", task_id="wildchat-w")
    result = asyncio.run(bench.score(record, "meh", judge(server)))
    assert result.metadata["outcomes"] == ["tie", "loss"]
    assert result.is_correct is True
    assert result.score == 0.25  # the mean points stay beside the verdict


def test_suite_settings_reach_the_provider(server, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "wc.jsonl", wildchat_rows())
    write_csv(tmp_path / "frames.csv", FRAMES_ROWS)
    suite = tmp_path / "suite.toml"
    suite.write_text(
        f"""
[meta]
name = "served"
[defaults]
temperature = 0.1
max_tokens = 300
[judge]
model = "judge-1"
provider = "openai-compat"
base_url = "{server.base_url}"
max_tokens = 64
temperature = 0.5
[run]
output_dir = "out"
seed = 5
[[models]]
name = "model-x"
provider = "openai-compat"
base_url = "{server.base_url}"
max_tokens = 200
[[benchmarks]]
name = "wildchat"
dataset = "wc.jsonl"
temperature = 0.7
[[benchmarks]]
name = "frames"
dataset = "frames.csv"
""",
        encoding="utf-8",
    )
    pairs = expand(load_suite(suite))
    outcomes = run_pairs(pairs, echo=lambda _line: None, handle_sigint=False)
    by = {o.pair.benchmark: o.summary for o in outcomes}
    # the model says "GOOD answer": it beats WildChat's originals in both orders
    assert (by["wildchat"]["correct"], by["wildchat"]["scored_samples"]) == (2, 2)
    # and it never says RIGHT: FRAMES' judge says NO to all four
    assert (by["frames"]["correct"], by["frames"]["scored_samples"]) == (0, 4)
    assert by["frames"]["prompt_tokens"] == 4 * 11
    model_calls = [r for r in server.requests if r["model"] == "model-x"]
    assert len(model_calls) == 6
    settings = {(r.get("temperature"), r.get("max_tokens"), r.get("seed")) for r in model_calls}
    # wildchat: the benchmark's 0.7; frames: [defaults] 0.1; max_tokens: the model's 200
    assert settings == {(0.7, 200, 5), (0.1, 200, 5)}
    judge_calls = [r for r in server.requests if r["model"] == "judge-1"]
    assert len(judge_calls) == 2 * 2 + 4
    assert {r["temperature"] for r in judge_calls} == {0.5}  # [judge] temperature, as written
    assert {r.get("max_tokens") for r in judge_calls} == {64}  # [judge] max_tokens
