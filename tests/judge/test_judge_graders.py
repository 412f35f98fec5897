"""The judge, llmRubric and pairwise graders with the scripted model as the judge."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from trialrun.errors import UserError
from trialrun.graders import TrialView, parse_grader, run_grader, solve_from
from trialrun.graders.pairwise import combine
from trialrun.judge import (
    NO_JUDGE_MESSAGE,
    JudgeModel,
    JudgeSettings,
    check_judge_spec,
    create_judge,
    resolve_judge_spec,
)
from trialrun.models import create_model
from trialrun.tasks import Task


def make_task(graders: list[dict[str, Any]], task_id: str = "t-judge") -> Task:
    return Task.model_validate(
        {
            "task_id": task_id,
            "suite": "open_ended",
            "description": "judge test",
            "inputs": {"prompt": "What is in welcome.md?"},
            "graders": graders,
            "tracked_metrics": ["pass@k"],
        }
    )


def view(task: Task, judge: Any, final_text: str = "It welcomes you.") -> TrialView:
    return TrialView(
        task_id=task.task_id,
        user_message=task.inputs.prompt,
        final_text=final_text,
        tool_calls=[],
        messages=[],
        workspace=None,
        judge=judge,
    )


def grade(
    config: dict[str, Any],
    judge: Any,
    final_text: str = "It welcomes you.",
    task_id: str = "t-judge",
):
    task = make_task([config], task_id)
    return asyncio.run(run_grader(task.graders[0], view(task, judge, final_text)))


class Counting:
    """Wraps a model and counts its calls (to prove cache hits cost nothing)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0
        self.provider, self.model_id = inner.provider, inner.model_id
        self.seen: list[list[dict[str, Any]]] = []

    async def complete(self, messages, tools, params):
        self.calls += 1
        self.seen.append(messages)
        assert params.temperature == 0
        return await self.inner.complete(messages, tools, params)

    async def aclose(self) -> None:
        return None


JUDGE = {"type": "judge", "criteria": "says what the note contains"}


def scripted(write_script, turns: list[dict[str, Any]]) -> Any:
    return Counting(create_model(f"scripted:{write_script({'default': turns})}"))


def test_yes_and_no(judge_settings: JudgeSettings, write_script) -> None:
    yes = grade(JUDGE, scripted(write_script, [{"content": "YES"}]))
    assert yes.passed is True
    assert yes.details["verdict"] == "YES" and yes.details["raw_replies"] == ["YES"]
    assert yes.details["criteria"] == JUDGE["criteria"] and yes.details["type"] == "judge"
    assert yes.details["cached"] is False and len(yes.details["prompt_sha256"]) == 64
    assert yes.details["judge_model"].startswith("scripted:")
    no = grade(JUDGE, scripted(write_script, [{"content": " no. "}]))
    assert no.passed is False and no.details["verdict"] == "NO"


def test_garbage_is_retried_once_then_undetermined(judge_settings, write_script) -> None:
    judge = scripted(write_script, [{"content": "Well, it depends."}, {"content": "Probably"}])
    v = grade(JUDGE, judge)
    assert v.passed is None
    assert "not a verdict after one retry" in v.details["judge_error"]
    assert v.details["raw_replies"] == ["Well, it depends.", "Probably"]
    assert judge.calls == 2
    retry = judge.seen[1]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == "Well, it depends."
    assert retry[3]["content"] == "Answer with exactly YES or NO."
    # an undetermined verdict makes solve undetermined, never solved
    assert solve_from([v]) is None


def test_garbage_then_valid_retry_counts(judge_settings, write_script) -> None:
    judge = scripted(write_script, [{"content": "I think so"}, {"content": "YES"}])
    v = grade(JUDGE, judge)
    assert v.passed is True and v.details["raw_replies"] == ["I think so", "YES"]
    assert "judge_error" not in v.details


def test_timeout_is_a_judge_error(judge_settings, write_script) -> None:
    # judge_settings.timeout_s = 0.5; the judge sleeps 5 s
    slow = scripted(write_script, [{"content": "YES", "delay_s": 5}])
    v = grade(JUDGE, JudgeModel(slow, judge_settings))
    assert v.passed is None and "timed out" in v.details["judge_error"]
    assert "judge_skipped" not in v.details


def test_unavailable_judge_is_skipped(judge_settings, write_script) -> None:
    v = grade(JUDGE, scripted(write_script, [{"error": "infra"}]))
    assert v.passed is None and v.details["judge_skipped"].startswith("judge unavailable")
    assert "judge_error" not in v.details


def test_no_judge_configured(judge_settings) -> None:
    for config in (
        JUDGE,
        {"type": "llmRubric", "rubric": "clear"},
        {"type": "pairwise", "reference": "It welcomes you."},
    ):
        v = grade(config, None)
        assert v.passed is None and v.details["judge_skipped"] == NO_JUDGE_MESSAGE


def test_per_task_script_and_cache_hit(judge_settings, write_script) -> None:
    path = write_script(
        {"tasks": {"t-judge": [{"content": "YES"}]}, "default": [{"content": "NO"}]}
    )
    first = Counting(create_model(f"scripted:{path}"))
    assert grade(JUDGE, first).passed is True  # the judge sees the trial's task id
    assert first.calls == 1
    second = Counting(create_model(f"scripted:{path}"))
    again = grade(JUDGE, second)
    assert again.passed is True and again.details["cached"] is True
    assert again.details["raw_replies"] == ["YES"]
    assert second.calls == 0
    # another response is another prompt: a miss
    other = grade(JUDGE, second, final_text="Something else")
    assert other.details["cached"] is False and second.calls == 1
    # failures are not cached: a garbage judge is asked again next time
    bad = scripted(write_script, [{"content": "hmm"}])
    grade(JUDGE, bad)
    grade(JUDGE, bad)
    assert bad.calls == 4


def test_concurrent_identical_questions_cost_one_call(judge_settings, write_script) -> None:
    judge = scripted(write_script, [{"content": "YES", "delay_s": 0.05}])
    task = make_task([JUDGE])

    async def many():
        return await asyncio.gather(
            *(run_grader(task.graders[0], view(task, judge)) for _ in range(5))
        )

    verdicts = asyncio.run(many())
    assert [v.passed for v in verdicts] == [True] * 5
    assert judge.calls == 1
    assert sum(v.details["cached"] for v in verdicts) == 4


def test_cache_disabled(tmp_path: Path, write_script, monkeypatch) -> None:
    monkeypatch.delenv("TRIALRUN_JUDGE_CACHE_DIR", raising=False)
    judge = scripted(write_script, [{"content": "YES"}])
    settled = JudgeModel(judge, JudgeSettings(cache=False, timeout_s=1))
    grade(JUDGE, settled)
    grade(JUDGE, settled)
    assert judge.calls == 2


def test_unpinned_judge_refused(judge_settings) -> None:
    with pytest.raises(UserError, match="pinned"):
        check_judge_spec("openai:gpt-4o-latest")
    with pytest.raises(UserError, match="pinned"):
        create_judge("gemini:gemini-2.5-flash-preview", judge_settings)
    with pytest.raises(UserError):
        resolve_judge_spec(None, JudgeSettings(model="ollama:qwen3:latest"))
    assert resolve_judge_spec("local", JudgeSettings(model="openai:gpt-4o-2024-08-06")) == "local"
    assert (
        resolve_judge_spec(None, JudgeSettings(model="openai:gpt-4o-2024-08-06"))
        == "openai:gpt-4o-2024-08-06"
    )
    assert resolve_judge_spec(None, JudgeSettings()) is None


class FakeUnpinned:
    provider, model_id = "openai", "gpt-4o-latest"

    async def complete(self, messages, tools, params):  # pragma: no cover - never called
        raise AssertionError("an unpinned judge must not be called")


def test_grader_skips_unpinned_judge_model(judge_settings) -> None:
    v = grade(JUDGE, FakeUnpinned())
    assert v.passed is None and "unpinned" in v.details["judge_skipped"]


# --- llmRubric ---

RUBRIC = {"type": "llmRubric", "rubric": "Names the note and its content", "threshold": 4}


def test_rubric_scores_and_threshold(judge_settings, write_script) -> None:
    v = grade(RUBRIC, scripted(write_script, [{"content": "Names it.\nSCORE: 4"}]))
    assert v.passed is True
    assert v.details["score"] == 4 and v.details["reasoning"] == "Names it."
    assert v.details["scale"] == [1, 5] and v.details["threshold"] == 4
    low = grade(RUBRIC, scripted(write_script, [{"content": "Vague.\nSCORE: 3"}]))
    assert low.passed is False and low.details["score"] == 3


def test_rubric_retry_then_error(judge_settings, write_script) -> None:
    judge = scripted(write_script, [{"content": "Good. 4/5"}, {"content": "SCORE: 5"}])
    v = grade(RUBRIC, judge)
    assert v.passed is True and v.details["score"] == 5 and judge.calls == 2
    assert "SCORE: n" in judge.seen[1][-1]["content"]
    bad = grade(RUBRIC, scripted(write_script, [{"content": "SCORE: 9"}]))  # off the scale
    assert bad.passed is None and "judge_error" in bad.details and bad.details["score"] is None


def test_rubric_config_validation() -> None:
    cfg = parse_grader({"type": "llmRubric", "rubric": "x", "scale": [0, 10]})
    assert cfg.threshold == 5  # default: middle of the scale, rounded up
    assert parse_grader({"type": "llmRubric", "rubric": "x"}).threshold == 3
    with pytest.raises(ValueError):
        parse_grader({"type": "llmRubric", "rubric": "x", "threshold": 7})
    with pytest.raises(ValueError):
        parse_grader({"type": "llmRubric", "rubric": "x", "scale": [5, 1]})


# --- pairwise ---

PAIR = {"type": "pairwise", "reference": "welcome.md greets new users."}


def pair_judge(write_script, first: list[dict], swapped: list[dict]) -> Counting:
    """The response-first order is asked with the trial's task id, the swapped order with
    `<task_id>/swapped`, so a script can answer the two orders differently."""
    path = write_script({"tasks": {"t-judge": first, "t-judge/swapped": swapped}})
    return Counting(create_model(f"scripted:{path}"))


@pytest.mark.parametrize(
    ("first", "swapped", "expected", "flip"),
    [
        ("[[A>B]]", "[[B>A]]", True, False),  # wins in both orders
        ("[[A=B]]", "[[A=B]]", True, False),  # ties
        ("[[B>>A]]", "[[A>B]]", False, False),  # loses in both orders
        ("[[A>B]]", "[[A>B]]", True, True),  # always prefers A: wins once → correct, flipped
        ("[[B>A]]", "[[A=B]]", True, True),  # loss then tie → correct
    ],
)
def test_pairwise_orders(judge_settings, write_script, first, swapped, expected, flip) -> None:
    judge = pair_judge(write_script, [{"content": f"because {first}"}], [{"content": swapped}])
    v = grade(PAIR, judge)
    assert v.passed is expected
    assert v.details["verdicts"] == {"response_first": first, "reference_first": swapped}
    assert v.details["position_flip"] is flip
    assert v.details["raw_replies"]["response_first"] == [f"because {first}"]
    assert judge.calls == 2
    a_prompt = judge.seen[0][1]["content"]
    b_prompt = [m for m in judge.seen if m[1]["content"] != a_prompt][0][1]["content"]
    # response first in one order, reference first in the other
    resp, ref = "It welcomes you.", PAIR["reference"]
    assert a_prompt.index(resp) < a_prompt.index(ref) or b_prompt.index(resp) < b_prompt.index(ref)
    assert (a_prompt.index(resp) < a_prompt.index(ref)) != (
        b_prompt.index(resp) < b_prompt.index(ref)
    )


def test_pairwise_one_order_fails(judge_settings, write_script) -> None:
    # loss in one order, no verdict in the other → undetermined with the error kept
    judge = pair_judge(
        write_script, [{"content": "[[B>A]]"}], [{"content": "unsure"}, {"content": "still unsure"}]
    )
    v = grade(PAIR, judge)
    assert v.passed is None and "reference_first" in v.details["judge_error"]
    assert v.details["raw_replies"]["reference_first"] == ["unsure", "still unsure"]
    # a win in one order decides, even when the other order failed
    judge = pair_judge(
        write_script, [{"content": "[[A>>B]]"}], [{"content": "unsure"}, {"content": "no idea"}]
    )
    v = grade(PAIR, judge)
    assert v.passed is True and "reference_first" in v.details["judge_errors"]


def test_combine_table() -> None:
    assert combine("win", None) is True
    assert combine(None, "tie") is True
    assert combine("loss", "loss") is False
    assert combine("loss", None) is None
    assert combine(None, None) is None
