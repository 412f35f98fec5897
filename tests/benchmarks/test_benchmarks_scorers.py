"""The four scorers: every normalisation and extraction rule, and the judge fallbacks
with the scripted model as judge (a loopback OpenAI-compatible judge for pairwise
outcomes is in test_benchmarks_judge_server.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.benchmarks import BENCHMARKS, Record, ScoreResult
from trialrun.benchmarks.gaia import exact_match, final_answer, normalize_number, normalize_text
from trialrun.benchmarks.supergpqa import INSTRUCTION, extract_letter
from trialrun.benchmarks.wildchat import single_turn
from trialrun.models import create_model

ABCD = ["A", "B", "C", "D"]


def score(name: str, record: Record, answer: str, judge: Any = None) -> ScoreResult:
    factory = BENCHMARKS.get(name)
    assert factory is not None
    return asyncio.run(factory().score(record, answer, judge))


def judge_for(script, replies: dict[str, Any]) -> Any:
    return create_model(f"scripted:{script(replies, 'judge.yaml')}")


# --- supergpqa ---


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("B", "B"),
        ("b", "B"),
        ("  C.  ", "C"),
        ("**D**", "D"),
        ("(A)", "A"),
        ("The answer is (C).", "C"),
        ("Answer: D", "D"),
        ("answer is B because it is the largest", "B"),
        ("Final answer: A", "A"),
        ("\\boxed{B}", "B"),
        ("B) beta", "B"),
        ("I pick option C here.", "C"),
        ("The correct option is D", "D"),
        ("Between (A) and more text, I go with it", "A"),
    ],
)
def test_supergpqa_letter_rules(answer: str, letter: str) -> None:
    assert extract_letter(answer, ABCD) == letter


@pytest.mark.parametrize(
    "answer",
    ["", "E", "Either A or B", "(A) or (B)", "a cat sat", "I do not know", "The answer is E"],
)
def test_supergpqa_no_letter_by_rules(answer: str) -> None:
    assert extract_letter(answer, ABCD) is None


def test_supergpqa_record_letters_options_and_instruction() -> None:
    bench = BENCHMARKS.get("supergpqa")()
    row = {
        "uuid": "u1",
        "question": "Unit of force?",
        "options": '["Joule", "Newton", "Pascal"]',  # a CSV copy keeps lists as text
        "answer": "Newton",
        "discipline": "Science",
    }
    record = bench.to_record(row, 0, None)
    assert record.problem.endswith(INSTRUCTION)
    assert "A) Joule\nB) Newton\nC) Pascal" in record.problem
    assert record.reference == "B"  # from the answer text: no answer_letter column
    assert record.metadata["valid_letters"] == ["A", "B", "C"]
    assert record.subject == "Science"


def test_supergpqa_subject_is_the_subfield_as_in_the_seed() -> None:
    bench = BENCHMARKS.get("supergpqa")()
    row = {
        "uuid": "u2", "question": "Q?", "options": ["a", "b"], "answer_letter": "A",
        "discipline": "Engineering", "field": "Mechanical Engineering",
        "subfield": "Fluid Flow and Transfer Processes",
    }
    assert bench.to_record(row, 0, None).subject == "Fluid Flow and Transfer Processes"
    assert bench.to_record({**row, "subfield": " "}, 0, None).subject == "Mechanical Engineering"
    bare = {k: v for k, v in row.items() if k not in ("discipline", "field", "subfield")}
    assert bench.to_record(bare, 0, None).subject == "general"


def sg_record(reference: str | None = "B", task_id: str = "supergpqa-u1") -> Record:
    return Record(
        "u1", "Q?\n\nA) a\nB) b\nC) c\nD) d", reference, "Science",
        {"valid_letters": ABCD}, task_id=task_id,
    )


def test_supergpqa_correct_and_wrong_by_rules() -> None:
    right = score("supergpqa", sg_record(), "The answer is B.")
    assert (right.is_correct, right.score) == (True, 1.0)
    assert right.metadata["candidate_letter"] == "B"
    assert right.metadata["reference_letter"] == "B"
    assert right.metadata["valid_letters"] == ABCD
    assert right.metadata["extraction"] == "rules"
    wrong = score("supergpqa", sg_record(), "C")
    assert (wrong.is_correct, wrong.metadata["candidate_letter"]) == (False, "C")


def test_supergpqa_missing_reference_is_undecided() -> None:
    result = score("supergpqa", sg_record(reference=None), "B")
    assert result.is_correct is None
    assert result.metadata["reason"] == "missing_reference_letter"


def test_supergpqa_no_letter_without_judge_is_wrong_with_reason() -> None:
    result = score("supergpqa", sg_record(), "It is the second one.")
    assert result.is_correct is False
    assert result.metadata["reason"] == "no_choice_letter_extracted"
    assert result.metadata["candidate_letter"] is None


def test_supergpqa_judge_fallback_reads_the_letter(script) -> None:
    judge = judge_for(script, {"supergpqa-u1": "B"})
    result = score("supergpqa", sg_record(), "It is the second one.", judge)
    assert result.is_correct is True
    assert result.metadata["extraction"] == "judge"
    assert result.metadata["candidate_letter"] == "B"
    assert result.metadata["judge_model"].startswith("scripted:")


def test_supergpqa_judge_says_none(script) -> None:
    judge = judge_for(script, {"supergpqa-u1": "NONE"})
    result = score("supergpqa", sg_record(), "No idea, sorry.", judge)
    assert result.is_correct is False
    assert result.metadata["reason"] == "no_choice_letter_extracted"


def test_supergpqa_judge_without_a_verdict_is_undecided(script) -> None:
    judge = judge_for(script, {"supergpqa-u1": "I think maybe the second"})
    result = score("supergpqa", sg_record(), "It is the second one.", judge)
    assert result.is_correct is None
    assert result.metadata["reason"] == "judge_undetermined"


# --- gaia ---


@pytest.mark.parametrize(
    ("answer", "reference", "expected"),
    [
        ("$1,234", "1234", True),  # numbers drop $ and , and compare as floats
        ("12%", "12", True),
        ("1,234.50", "1234.5", True),
        ("3.0", "3", True),
        ("3.1", "3", False),
        ("three", "3", False),
        ("a, b; c", "a,b,c", True),  # lists split on , or ; element-wise
        ("A;B", "a, b", True),
        ("a, b", "a, b, c", False),
        ("1, 2.0", "1,2", True),
        ("1, 3", "1,2", False),
        ("New York!", "new york", True),  # strings: lowercase, no whitespace, no punctuation
        ("NewYork", "new york", True),
        ("St. Louis", "st louis", True),
        ("Paris", "London", False),
    ],
)
def test_gaia_exact_match(answer: str, reference: str, expected: bool) -> None:
    assert exact_match(answer, reference) is expected


def test_gaia_normalizers_and_final_answer() -> None:
    assert normalize_number(" $3,000 ") == 3000.0
    assert normalize_number("n/a") is None
    assert normalize_text(" Hello,  World! ") == "helloworld"
    assert final_answer("thinking...\nFINAL ANSWER: 42") == "42"
    assert final_answer("Final answer: Paris\n(because)") == "Paris"
    assert final_answer("just 7") == "just 7"


def gaia_record() -> Record:
    return Record("g1", "Sum?", "42", "level 1", {}, task_id="gaia-g1")


def test_gaia_exact_then_judge_fallback(script) -> None:
    exact = score("gaia", gaia_record(), "Work...\nFINAL ANSWER: 42.0")
    assert (exact.is_correct, exact.metadata["match_type"]) == (True, "exact")
    no_judge = score("gaia", gaia_record(), "FINAL ANSWER: forty-two")
    assert (no_judge.is_correct, no_judge.metadata["match_type"]) == (False, "exact")
    judge = judge_for(script, {"gaia-g1": "YES"})
    fallback = score("gaia", gaia_record(), "FINAL ANSWER: forty-two", judge)
    assert (fallback.is_correct, fallback.metadata["match_type"]) == (True, "llm_fallback")
    assert fallback.metadata["extracted_answer"] == "forty-two"


def test_gaia_prompt_names_the_attached_file(tmp_path: Path) -> None:
    data = tmp_path / "sales.csv"
    data.write_text("a,b\n1,2\n")
    bench = BENCHMARKS.get("gaia")()
    record = Record("g", "Sum?", "3", files=[data])
    assert "Attached file: sales.csv" in bench.prompt(record, "agent")
    assert "file_read" in bench.prompt(record, "agent")
    assert "a,b\n1,2" in bench.prompt(record, "direct")  # direct: the text inline


# --- frames ---


def frames_record() -> Record:
    return Record("0", "Which river?", "Manzanares", "Multiple constraints", task_id="frames-0")


def test_frames_judge_decides(script) -> None:
    judge = judge_for(script, {"frames-0": "YES"})
    yes = score("frames", frames_record(), "The Manzanares.", judge)
    assert (yes.is_correct, yes.score) == (True, 1.0)
    no = score("frames", frames_record(), "The Thames.", judge_for(script, {"frames-0": "**NO**"}))
    assert no.is_correct is False


def test_frames_without_judge_is_undecided() -> None:
    result = score("frames", frames_record(), "The Manzanares.")
    assert result.is_correct is None
    assert result.metadata["reason"] == "no_judge"


def test_frames_empty_answer_is_wrong() -> None:
    assert score("frames", frames_record(), "  ").is_correct is False


# --- wildchat ---


def wc(conversation: list[dict[str, Any]], **row: Any) -> dict[str, Any]:
    return {"conversation": conversation, "language": "English", "turn": 1, **row}


U = {"role": "user", "content": "hi", "language": "English"}
A = {"role": "assistant", "content": "hello", "language": "English"}


def test_wildchat_keeps_english_single_turn_only() -> None:
    assert single_turn(wc([U, A])) == ("hi", "hello")
    assert single_turn(wc([U, A], language="Spanish")) is None
    assert single_turn(wc([U, A, U, A], turn=2)) is None
    assert single_turn(wc([U, A, U, A], turn=None)) is None
    assert single_turn(wc([A, U])) is None
    assert single_turn(wc([U])) is None
    assert single_turn(wc([U, {**A, "content": ""}])) is None


@pytest.mark.parametrize("verdict", ["[[A=B]]", "[[A>B]]", "[[B>>A]]"])
def test_wildchat_one_verdict_in_both_orders_is_a_tie(script, verdict: str) -> None:
    # the same verdict for both orders: the model wins one and loses one (or ties both)
    judge = judge_for(script, {"wildchat-x": verdict})
    record = Record("x", "Write a haiku", "Rain falls", task_id="wildchat-x")
    result = score("wildchat", record, "Drops on the roof", judge)
    assert result.score == 0.5
    assert result.is_correct is True
    assert len(result.metadata["outcomes"]) == 2


def test_wildchat_subject_is_conversation_as_in_the_seed() -> None:
    bench = BENCHMARKS.get("wildchat")()
    record = bench.to_record(wc([U, A], model="gpt-4-0314", conversation_hash="h"), 0, None)
    assert record.subject == "conversation"
    assert record.metadata["original_model"] == "gpt-4-0314"


def test_wildchat_without_judge_is_undecided() -> None:
    record = Record("x", "Write a haiku", "Rain falls", task_id="wildchat-x")
    assert score("wildchat", record, "Drops").is_correct is None


# --- open-ended inputs ---


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.integers(1, 10))
def test_extract_letter_returns_a_valid_letter_or_none(answer: str, n: int) -> None:
    valid = list("ABCDEFGHIJ"[:n])
    assert extract_letter(answer, valid) in (*valid, None)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_exact_match_never_raises_and_matches_itself(answer: str, reference: str) -> None:
    assert isinstance(exact_match(answer, reference), bool)
    if "nan" not in reference.lower():  # NaN is never equal to itself, as in GAIA's scorer
        assert exact_match(reference, reference)
