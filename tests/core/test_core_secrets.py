"""Secrets never leave trialrun: URL userinfo, secret options, key-looking values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trialrun.core import MASK, redact, redact_argv, strip_userinfo

SECRET = "sk-proj-AbCdEf0123456789xyz"


@pytest.mark.parametrize(
    "text",
    [
        f"openai-compat:gpt-4o@http://user:{SECRET}@127.0.0.1:9/v1",
        f"my-agent --api-key {SECRET}",
        "my-agent --api-key=s3cr3tvalue",
        "my-agent --token s3cr3tvalue",
        "my-agent --password s3cr3tvalue",
        "my-agent --client-secret s3cr3tvalue",
        "MY_SERVICE_TOKEN=s3cr3tvalue ./agent",
        "OPENAI_API_KEY=s3cr3tvalue ./agent",
        "curl -H 'Authorization: Bearer s3cr3tvalue123'",
        "GET /v1/models?key=s3cr3tvalue",
        f"the key is {SECRET}",
    ],
)
def test_secret_looking_values_are_masked(text: str) -> None:
    out = redact(text)
    assert "s3cr3tvalue" not in out
    assert SECRET not in out
    assert MASK in out


@pytest.mark.parametrize(
    "text",
    ["--max-tokens 5", "--keep-artifacts", "monitor the tokens", "http://127.0.0.1:9/v1"],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_url_userinfo_is_masked_but_the_host_stays() -> None:
    assert redact("http://u:pw1234@host:8/v1") == "http://***@host:8/v1"
    assert strip_userinfo("http://u:pw1234@host:8/v1") == "http://host:8/v1"
    assert strip_userinfo("http://host:8/v1") == "http://host:8/v1"


def test_argv_masks_an_option_value_given_as_the_next_item() -> None:
    argv = ["trialrun", "run", "--agent-cmd", "x --token t0ken123"]
    argv += ["--api-key", "abcdefg", "-k", "3"]
    assert redact_argv(argv) == [
        "trialrun", "run", "--agent-cmd", f"x --token {MASK}", "--api-key", MASK, "-k", "3",
    ]


def test_environment_key_values_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plain-looking-value")
    assert redact("error: plain-looking-value rejected") == f"error: {MASK} rejected"


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=8, max_size=30))
def test_any_token_value_is_masked(value: str) -> None:
    assert value not in redact(f"agent --token {value} --api-key={value} X_TOKEN={value}")


@settings(max_examples=300)
@given(st.text(), st.sampled_from([1, 2, 5, 1 << 16]))
def test_folded_is_casefold_slice_by_slice(text: str, slice_size: int) -> None:
    """The gate's case-folding, a slice at a time (no 12-bytes-a-character scratch
    buffer), is exactly `str.casefold` (ASCII lowered, 'ß' as 'ss', 'ſ' as 's')."""
    from trialrun.core import _secrets

    original = _secrets._FOLD_SLICE
    _secrets._FOLD_SLICE = slice_size
    try:
        assert _secrets.folded(text) == text.casefold()
        assert _secrets.folded(text + "ßſK·") == (text + "ßſK·").casefold()
    finally:
        _secrets._FOLD_SLICE = original


_PIECES = st.sampled_from([
    "://", "u:p@h", "bearer", "auth", "authorization", "key", "token", "secret", "passw",
    "password", "pwd", "sig", "signature", "credential", "sk-", "aiza", "gh", "p_",
    "github_pat_", "xox", "b-", "akia", "asia", "hf_", "eyj", ".eyj", "ke", "yj", "ta",
    "sk", "-", "=", ":", '"', "\\n", " ", "\n", "x" * 16, "0123456789abcdef" * 2, "ſ",
    "K", "KEY", "ß", "·", "\ud800", "é",
])


@settings(max_examples=500)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=40).map("".join))
def test_the_gate_finds_its_literals_in_one_pass_as_one_test_each_did(text: str) -> None:
    """`_gated` finds every gate literal with one Aho-Corasick pass over the UTF-8 bytes
    (overlaps included: 'keyj' holds 'key' and 'eyj'); it answers as a substring test
    per literal did, for any text (lone surrogates and non-ASCII folding included)."""
    from trialrun.core import _secrets

    folded_text = _secrets.folded(text)
    expected = any(literal in folded_text and gate.search(folded_text) is not None
                   for literal, gate in _secrets._GATES)
    assert _secrets._gated(text) is expected


def test_the_gate_sees_a_literal_that_overlaps_another() -> None:
    from trialrun.core import _secrets

    # 'key' (not a gate here: no separator follows) overlaps the 'eyj' of a JWT
    assert _secrets._gated("keyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0")
    assert not _secrets._gated("keyJhbGciOiJIUzI1NiJ9")  # one part only: no JWT
    assert not _secrets._gated("monkeys and donkeys")
    # the only 'hf_' overlaps a 'gh': a one-match-at-a-time scan would see 'gh' alone
    assert _secrets._gated("ghf_" + "a" * 30)


def test_every_gate_begins_with_its_literal() -> None:
    """`_gated` tries each gate only where one of its literals starts: that finds every
    match only while each of a gate's alternatives begins with the literal."""
    from trialrun.core import _secrets

    for literal, gate in _secrets._GATES:
        assert all(alternative.startswith(literal) for alternative in gate.pattern.split("|")), (
            literal, gate.pattern)
