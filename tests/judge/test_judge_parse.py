"""Reply contracts: YES/NO, `SCORE: n`, five-point pairwise verdicts; prompts are blind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trialrun.judge import (
    pairwise_prompt,
    parse_pairwise,
    parse_score,
    parse_yes_no,
    rubric_prompt,
    yes_no_prompt,
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("YES", True),
        ("NO", False),
        ("yes", True),
        ("  No.\n", False),
        ("**YES**", True),
        ('"no"', False),
        ("Yes!", True),
        ("YES and NO", None),
        ("The answer is YES", None),
        ("YESNO", None),
        ("", None),
        (None, None),
        ("maybe", None),
        ("Y", None),
    ],
)
def test_yes_no_contract(reply: str | None, expected: bool | None) -> None:
    assert parse_yes_no(reply) is expected


@given(st.text())
def test_yes_no_only_accepts_a_lone_word(text: str) -> None:
    result = parse_yes_no(text)
    if result is not None:
        letters = "".join(ch for ch in text if ch.isalnum()).lower()
        assert letters == ("yes" if result else "no")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Clear and complete.\nSCORE: 4", (4, "Clear and complete.")),
        ("reasoning\n\nscore: 5\n\n", (5, "reasoning")),
        ("**SCORE: 2**", (2, "")),
        ("ok\nSCORE: 3.5", (3.5, "ok")),
        ("SCORE: 6", None),  # outside the scale
        ("SCORE: 0", None),
        ("SCORE: 4\nbut actually more text", None),  # must be the last line
        ("I'd give it a 4", None),
        ("", None),
    ],
)
def test_score_contract(reply: str, expected: tuple | None) -> None:
    assert parse_score(reply, 1, 5) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("A is more precise. [[A>B]]", "[[A>B]]"),
        ("[[B>>A]]", "[[B>>A]]"),
        ("tie [[A=B]] as I said: [[A=B]]", "[[A=B]]"),  # the same token twice is one verdict
        ("[[A>B]] or maybe [[B>A]]", None),  # two different verdicts: not a verdict
        ("A>B", None),
        ("[[A>=B]]", None),
        (None, None),
    ],
)
def test_pairwise_contract(reply: str | None, expected: str | None) -> None:
    assert parse_pairwise(reply) == expected


def test_prompts_are_blind_and_hash_stably() -> None:
    p = yes_no_prompt("Summarise the note", "It says hi.", "mentions the greeting")
    assert "Summarise the note" in p.user and "It says hi." in p.user
    assert "mentions the greeting" in p.user
    for leak in ("scripted", "gemini", "provider", "model id"):
        assert leak not in (p.system + p.user).lower()
    assert (
        p.sha256
        == yes_no_prompt("Summarise the note", "It says hi.", "mentions the greeting").sha256
    )
    assert (
        p.sha256
        != yes_no_prompt("Summarise the note", "It says hi!", "mentions the greeting").sha256
    )
    r = rubric_prompt("q", "a", "be concise", 1, 10)
    assert "SCORE: n" in r.user and "1" in r.user and "10" in r.user
    a = pairwise_prompt("q", "first", "second", None)
    b = pairwise_prompt("q", "second", "first", None)
    assert a.sha256 != b.sha256
    assert a.user.index("first") < a.user.index("second")
