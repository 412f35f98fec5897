"""Unpinned model ids are found wherever the marker sits in the model id, never in the base
URL (trialrun issue 10 item 7). Seen: `openai-compat:gpt-4o-latest@http://…` was blessed
with exit 0 and accepted as a judge."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from trialrun.core import is_unpinned, model_name
from trialrun.errors import UserError
from trialrun.graders import GRADERS, TrialView, parse_grader, run_grader
from trialrun.judge import check_judge_spec
from trialrun.metrics import summarize
from trialrun.rundir import ResultLine

COMPAT_LATEST = "openai-compat:gpt-4o-latest@http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    "model_id",
    [
        "gpt-4o-latest@http://127.0.0.1:9/v1",
        "gpt-4o-latest@https://user:pw@example.com/v1",
        "gemini-flash-latest",
        "gemma4:latest",
        "gemma4:latest@http://127.0.0.1:11434/v1",
        "gemini-2.5-flash-preview-05-20",
        "gpt-4o-latest:free",
        "GPT-4o-Latest",
    ],
)
def test_unpinned_anywhere_in_the_model_id(model_id: str) -> None:
    assert is_unpinned(model_id)


@pytest.mark.parametrize(
    "model_id",
    [
        "gpt-4o-2024-08-06",
        "gpt-4o-2024-08-06@http://latest-preview.internal:9/v1",
        "qwen2.5@http://127.0.0.1:8000/preview-latest",
        "gemma4:e4b",
        "examples/scripts/good.yaml",
        "",
    ],
)
def test_pinned_ids_and_base_urls_are_not_flagged(model_id: str) -> None:
    assert not is_unpinned(model_id)


def test_model_name_drops_the_base_url() -> None:
    assert model_name("gpt-4o@http://127.0.0.1:9/v1") == "gpt-4o"
    assert model_name("a@b@https://x/v1") == "a@b"
    assert model_name("gemma4:e4b") == "gemma4:e4b"
    assert model_name("@http://x") == "@http://x"  # nothing before the URL: kept as it is


def test_judge_with_a_base_url_is_refused_and_named_without_it() -> None:
    with pytest.raises(UserError) as info:
        check_judge_spec(COMPAT_LATEST)
    message = str(info.value)
    assert "pinned" in message and "'gpt-4o-latest'" in message
    assert check_judge_spec("openai-compat:gpt-4o-2024-08-06@http://127.0.0.1:9/v1")


class _CompatLatest:
    provider, model_id = "openai-compat", "gpt-4o-latest@http://127.0.0.1:9/v1"

    async def complete(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise AssertionError("an unpinned judge must not be called")


def test_graders_skip_an_unpinned_judge_behind_a_base_url() -> None:
    config = parse_grader({"type": "judge", "criteria": "polite"})
    assert "judge" in GRADERS.names()
    view = TrialView("t", "hi", "hello", [], [], None, judge=_CompatLatest())
    verdict = asyncio.run(run_grader(config, view))
    assert verdict.passed is None
    assert "unpinned" in verdict.details["judge_skipped"]


def test_summary_warns_about_an_unpinned_model_behind_a_base_url() -> None:
    line = ResultLine.from_json(
        {
            "task_id": "a",
            "model": COMPAT_LATEST,
            "provider": "openai-compat",
            "trial": 0,
            "pass": True,
            "solve": True,
            "error": None,
            "verdicts": [],
            "tool_calls": [],
            "turns": 1,
            "tokens": {"prompt": 1, "cached": 0, "completion": 1},
            "cost_usd": None,
            "latency_s": 0.1,
            "safety_violation": False,
            "transcript": None,
        }
    )
    summary = summarize([line], [{"task_id": "a", "k": 1}], models=[COMPAT_LATEST])
    assert summary.unpinned_models == [COMPAT_LATEST]
